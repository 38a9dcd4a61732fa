import TabulaPlatform

/// The ticker's thread: heartbeats, streams whose response was never sent let go, and
/// every streamed session read again now and then.
extension StreamHub {
    /// A heartbeat for a stream that started; a stream whose response was never sent (a
    /// shutdown answered its request first) is let go a tick after its own.
    func tend(_ stream: some TickedStream, at tick: Int, unregister: () -> Void) {
        let status = stream.status
        if status.started {
            stream.heartbeat()
        } else if stream.openedAtTick < tick - 1 {
            unregister()
        }
    }

    /// Every heartbeat interval: a heartbeat on every stream, streams whose response was
    /// never sent let go; every recheck interval, every streamed session read again. Each on
    /// its own clock: a heartbeat of ten minutes does not make the recheck wait as long.
    func runTicker() {
        let heartbeat = Duration.seconds(settings.heartbeatSeconds)
        let recheck = Duration.seconds(settings.recheckSeconds)
        var nextHeartbeat = ContinuousClock.now + heartbeat
        var nextRecheck = ContinuousClock.now + recheck
        while true {
            let wait = (min(nextHeartbeat, nextRecheck) - ContinuousClock.now).components
            let seconds = max(0, Double(wait.seconds) + Double(wait.attoseconds) * 1e-18)
            guard ticks.take(maximum: 1, timeout: seconds) != nil else { return }
            let now = ContinuousClock.now
            if now >= nextHeartbeat {
                nextHeartbeat = now + heartbeat
                beat()
            }
            if now >= nextRecheck {
                nextRecheck = now + recheck
                recheckAll()
            }
        }
    }

    /// A heartbeat on every stream; streams whose response was never sent let go; and the
    /// feed's entries no commit here announced (an expiry; on PostgreSQL, one that was not
    /// readable yet when its commit was announced).
    private func beat() {
        let current = tick.wrappingAdd(1, ordering: .relaxed).newValue
        let (screens, feeds) = channels.withLock { channels in
            (channels.byID.values.flatMap { $0.streams.values }, Array(channels.feeds.values))
        }
        for stream in screens {
            tend(stream, at: current) {
                unregister(stream)
                stream.abandon()
            }
        }
        for stream in feeds {
            tend(stream, at: current) {
                unregister(stream)
                stream.abandon()
            }
        }
        feedChanged()
    }
}

/// What the hub's ticker tends: a stream's heartbeat, and whether its response was sent.
protocol TickedStream: AnyObject {
    var status: (started: Bool, closed: Bool) { get }
    var openedAtTick: Int { get }
    func heartbeat()
}

extension ScreenStream: TickedStream {}
extension FeedStream: TickedStream {}
