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
    /// never sent let go; every recheck interval, every streamed session read again.
    func runTicker() {
        var sinceRecheck = 0
        while ticks.take(maximum: 1, timeout: Double(settings.heartbeatSeconds)) != nil {
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
            // Entries no commit here announced (an expiry; on PostgreSQL, one that was not
            // readable yet when its commit was announced).
            feedChanged()
            sinceRecheck += settings.heartbeatSeconds
            if sinceRecheck >= settings.recheckSeconds {
                sinceRecheck = 0
                recheckAll()
            }
        }
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
