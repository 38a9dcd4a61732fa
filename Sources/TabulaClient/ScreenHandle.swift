import TabulaModel

/// One screen of a session, kept current: it loads the screen, follows its stream, sends the
/// user's events, and publishes every change as a change set to animate (or a whole screen
/// when it had to fetch again) on ``updates``.
///
/// The guarantees, each a rule of `docs/clients.md`:
/// - Every event carries an `eventId`, and is sent again with the same id (and the same
///   body) after a transport failure, so it applies once. Events are sent one at a time, in
///   the order the app made them.
/// - Updates, from the stream and from answers alike, are applied in revision order, each
///   once, never backwards. One that does not fit the copy (it starts from another
///   revision, or does not apply) makes the handle fetch the screen again and publish it
///   whole, as it does after `409`. Only the service's own word that the copy is ahead of it
///   (`409 future-revision`, or a whole screen on the stream older than the copy the stream
///   was named) takes the copy back.
/// - The stream is resumed with `Last-Event-ID` naming the copy held, after a wait that
///   doubles from its `retry:` (with jitter, up to the configuration's maximum); a stream
///   silent for twice the heartbeat is taken as dead.
/// - **An answer starts from what the user sees**: the edits of a row while the user types
///   are coalesced (only the newest value waits to be sent), and a published update of a row
///   carries the value its control shows, never an older one the service answered for.
/// - `gone`, and `401`, end the handle with a reason.
public actor ScreenHandle {
    public nonisolated let screenID: String
    public nonisolated let item: String?
    /// Everything the handle publishes, in order; it finishes after ``ScreenUpdate/ended(_:)``.
    public nonisolated let updates: AsyncStream<ScreenUpdate>
    private nonisolated let publisher: AsyncStream<ScreenUpdate>.Continuation
    /// What the handle knows of its reach (``connection``): the last failure of its
    /// requests and of its stream, each cleared by that side's next answer, and whether the
    /// service ever answered.
    var requestFailure: String?
    var streamFailure: String?
    var answeredOnce = false
    /// Whether the stream ever sent its first field: until then the handle is `connecting`.
    var streamOpenedOnce = false
    /// The readers of ``connectionChanges()``, and the state they were last given.
    var connectionReaders: [Int: AsyncStream<Connection>.Continuation] = [:]
    var nextConnectionReader = 0
    var connectionPublished = Connection.connecting
    private let session: TabulaSession

    /// The service's screen as of the copy's revision and definition: what events name.
    private var copy: Screen?
    /// The screen last published, with the user's own changes since (typing, a drop).
    private var shown: Screen?
    /// What the user's controls show, by row, until the service answered for it.
    private var shownByUser: [String: UserValue] = [:]
    /// The rows the user dragged, in the order dropped, until the service answered for them.
    private var movedByUser: [UserMove] = []
    private var queue: [PendingEvent] = []
    private var sender: Task<Void, Never>?
    private var follower: Task<Void, Never>?
    private var endReason: EndReason?
    /// When the stream last sent anything (an event or a heartbeat).
    private var lastHeard = ContinuousClock.now
    /// The copy's revision the stream's connection named in `Last-Event-ID`, if any.
    private var streamNamed: Int?

    private var screenPath: String { Self.path(of: screenID) }
    private var itemQuery: [(name: String, value: String)] { Self.query(item: item) }

    /// A screen's path, which its routes extend.
    static func path(of screen: String) -> String { "/v1/screens/\(screen.percentEncoded)" }
    /// The query naming the item an item screen shows.
    static func query(item: String?) -> [(name: String, value: String)] { item.map { [("item", $0)] } ?? [] }

    init(session: TabulaSession, screenID: String, item: String?) {
        self.session = session
        self.screenID = screenID
        self.item = item
        (updates, publisher) = AsyncStream<ScreenUpdate>.makeStream()
    }

    /// The screen as the user sees it: the last published, with their typing.
    public var screen: Screen? { shown }

    /// Whether events wait to be sent or answered (an app may show that it is saving).
    public var hasPendingEvents: Bool { !queue.isEmpty || sender != nil }

    /// Loads the screen and follows its stream until ``close()``, `gone` or `401`.
    public func start() {
        guard follower == nil, endReason == nil else { return }
        follower = Task { await self.follow() }
    }

    /// Stops the handle: ``updates`` ends with ``EndReason/closed``. A handle follows its
    /// screen until it ends or this is called, whether ``updates`` is read or not, and keeps
    /// every update for its reader: call it when the view goes away for good.
    public func close() {
        end(.closed)
    }

    // MARK: Events

    /// Sends an event. Edits also show at once in ``screen``, as the user's control does.
    public func send(_ event: ClientEvent) {
        guard endReason == nil else { return }
        switch event {
        case .edit(let row, let value):
            shownByUser[row] = .value(value)
            shown = shown?.showing([row: .value(value)])
            // Only the newest value of a row waits: an edit not yet sent, and made after
            // every other event that waits, takes the new value. (One made before another
            // event does not: the value would overtake that event, a submit of its form say.)
            if let waiting = queue.indices.last, queue[waiting].body == nil, queue[waiting].event.isEdit(of: row) {
                queue[waiting].event = event
                return
            }
        case .toggle(let row, let isOn):
            shownByUser[row] = .isOn(isOn)
            shown = shown?.showing([row: .isOn(isOn)])
        case .move(let row, let destination):
            // A drop the copy cannot show (into another section, past the end) is sent as it
            // was made, for the service to refuse: recorded as where the row stands, it was
            // sent as no move at all, accepted, and the row stayed where the user dropped it.
            guard let moved = shown?.moving(row: row, to: destination) else {
                var asMade = PendingEvent(event: event)
                asMade.sentAsMade = true
                queue.append(asMade)
                if sender == nil { sender = Task { await self.sendQueued() } }
                return
            }
            shown = moved
            movedByUser.append(UserMove(row: row, in: moved))
        default:
            break
        }
        queue.append(PendingEvent(event: event))
        if sender == nil { sender = Task { await self.sendQueued() } }
    }

    private func sendQueued() async {
        defer { sender = nil }
        while endReason == nil, !queue.isEmpty {
            if copy == nil { await fetchWhole() }
            guard endReason == nil, let copy else { return }
            if queue[0].body == nil {
                if !queue[0].sentAsMade { queue[0].event = placedAsDropped(queue[0].event, in: copy) }
                queue[0].prepare(copy: copy, item: item)
            }
            let pending = queue[0]
            guard let outcome = await deliver(pending) else { return }
            queue.removeFirst()
            await handle(outcome, of: pending)
        }
    }

    /// A move as the user sees it in `copy`: the row after the one it was dropped after.
    /// Updates that came between the drop and the send (another client's rows, a `409`'s
    /// screen) move indexes, not what the user did. A move whose row or anchor is gone is
    /// sent as it was made, and the service judges it.
    private func placedAsDropped(_ event: ClientEvent, in copy: Screen) -> ClientEvent {
        guard case .move(let row, _) = event, let move = movedByUser.first(where: { $0.row == row }),
            let source = copy.path(ofRow: row),
            move.after.map({ after in copy.sections[source.section].rows.contains { $0.id == after } }) ?? true,
            let destination = copy.showing([move]).path(ofRow: row)
        else { return event }
        return .move(row: row, to: destination)
    }

    private enum EventOutcome {
        case answered(EventAnswer)
        case refused(ServiceProblem)
    }

    /// Sends one event until it gets an answer; `nil` when the handle ended meanwhile.
    private func deliver(_ pending: PendingEvent) async -> EventOutcome? {
        var backoff = Backoff(initial: .milliseconds(200), maximum: session.configuration.maximumReconnectDelay)
        let request = session.request(
            "POST", "\(screenPath)/\(pending.event.route)", query: itemQuery, headers: [("Content-Type", "application/json")],
            body: pending.body)
        while endReason == nil, !Task.isCancelled {
            let answer: HTTPAnswer
            do {
                answer = try await session.transport.send(request)
            } catch {
                if error.isClosed {
                    end(.closed)
                    return nil
                }
                // It may have reached the service: the same body and id again apply it once.
                noteRequest(failed: error.description)
                try? await Task.sleep(for: backoff.next())
                continue
            }
            if answer.status == 200 {
                // A page that is not JSON (a captive portal's) is not the service's answer.
                guard let json = try? JSONValue.answer(answer.body) else {
                    noteRequest(failed: "an event's answer is not JSON: not the service's answer")
                    try? await Task.sleep(for: backoff.next())
                    continue
                }
                do {
                    let answered = try EventAnswer(json: json)
                    noteRequest(failed: nil)
                    return .answered(answered)
                } catch {
                    noteRequest(failed: "an event's answer is not the service's: \(error)")
                    return .refused(ServiceProblem(status: 200, slug: "malformed-answer", title: "", detail: error.description))
                }
            }
            let problem = ServiceProblem(answer: answer)
            // A page without the service's problem document (a proxy's `5xx` or `401`, a portal's
            // redirect) is not the service's answer: the event may or may not have reached
            // the service, and the same body and id again apply it once.
            if !problem.isDocument {
                noteRequest(failed: problem.reason)
                try? await Task.sleep(for: backoff.next(notBefore: answer.retryAfter))
                continue
            }
            // The store, or the backend's capacity, is busy: nothing was applied. Sent again
            // after the answer's `Retry-After`, when it asks for longer than the backoff. (An
            // instance without a backend stays so: that refusal is the event's.)
            if answer.status == 503, problem.slug != "actions-not-configured" {
                noteRequest(failed: problem.description)
                try? await Task.sleep(for: backoff.next(notBefore: answer.retryAfter))
                continue
            }
            noteRequest(failed: nil)
            return .refused(problem)
        }
        return nil
    }

    private func handle(_ outcome: EventOutcome, of pending: PendingEvent) async {
        switch outcome {
        case .answered(let answer):
            forgetShownByUser(pending.event)
            if !pending.sentAsMade { forgetMoveByUser(pending.event) }
            if let named = pending.named, let copy, copy.revision == named.revision, copy.definition == named.definition,
                answer.update.fromRevision == named.revision
            {
                // The answer goes from the copy the event named, as the user saw it.
                await accept(answer.update, base: pending.seen(in: copy))
            } else if let named = pending.named, let copy, copy.definition != named.definition {
                // A deployment reached the copy meanwhile: an answer from the copy of the
                // definition before does not fit it, whatever its revisions say.
                if CopyOrder.place(answer.update, after: copy) != .held { await fetchWhole() }
            } else {
                await receive(answer.update)
            }
            // The stream may have brought the copy past the answer before it came: the
            // user's value the answer let go of then shows nowhere but on the screen.
            showCopyIfApart()
            publish(.answered(pending.event, effects: answer.effects, submitted: answer.submitted))
        case .refused(let problem):
            if let reason = EndReason(refusal: problem) {
                end(reason)
                return
            }
            // An event sent again after a 409 still shows what the user did meanwhile.
            if problem.status != 409 || pending.resent {
                forgetShownByUser(pending.event)
                if !pending.sentAsMade { forgetMoveByUser(pending.event) }
            }
            if problem.status == 409, !pending.resent {
                // The copy is out of date: fetch it and send the event again, against it.
                await fetchWhole(replacingNewer: problem.slug == "future-revision")
                var again = PendingEvent(event: pending.event)
                again.resent = true
                again.sentAsMade = pending.sentAsMade
                queue.insert(again, at: 0)
                return
            }
            publish(.refused(pending.event, problem))
            // What the user did is not what the service holds: show what it holds. The fetch
            // shows nothing when the stream brought the copy past it meanwhile; the copy,
            // which does not hold the refused change either, is then shown.
            await fetchWhole(replacingNewer: problem.slug == "future-revision")
            showCopyIfApart()
        }
    }

    /// The service answered for what the user's control showed when the event was made:
    /// unless the user changed it since (an event of the row still waits), the copy shows it
    /// from now on.
    private func forgetShownByUser(_ event: ClientEvent) {
        for (row, value) in event.userValues where shownByUser[row] == value {
            if !queue.contains(where: { $0.event.userValues[row] != nil }) { shownByUser[row] = nil }
        }
    }

    /// The service answered for a row the user dragged (the oldest move of it that waits).
    private func forgetMoveByUser(_ event: ClientEvent) {
        guard case .move(let row, _) = event, let index = movedByUser.firstIndex(where: { $0.row == row }) else { return }
        movedByUser.remove(at: index)
    }

    // MARK: The copy

    /// Applies an update whose base is known; one that does not apply fetches the screen.
    private func accept(_ update: CopyUpdate, base: Screen) async {
        guard var next = try? update.changes.applyChecked(to: base) else {
            await fetchWhole()
            return
        }
        next.revision = update.toRevision
        next.definition = update.definition
        advance(to: next, by: update.changes)
    }

    /// Applies an update from the stream, or an answer that no longer starts from the copy:
    /// in revision order, once, never backwards. One that does not fit the copy (it starts
    /// from another revision) is not caught up piece by piece: the screen is fetched again
    /// and published whole, as after a `409`.
    private func receive(_ update: CopyUpdate) async {
        guard let copy else { return }
        switch CopyOrder.place(update, after: copy) {
        case .held:
            return
        case .next:
            await accept(update, base: copy)
        case .gap:
            await fetchWhole()
        }
    }

    /// Fetches the screen whole and publishes it; ends the handle on `401` and `404`.
    /// `replacingNewer`: the service said the copy is ahead of it (`409 future-revision`: a
    /// store restored from a backup, say), so its screen replaces the copy even when its
    /// revision is lower. Otherwise an answer older than the copy (the stream brought the
    /// copy past it meanwhile) is not taken.
    ///
    /// An answer that is not this screen (not a screen, or another screen or item) is asked
    /// for again after a wait, as a failure to reach the service is: the service may be
    /// behind a proxy or a captive portal that answers for it for a while.
    private func fetchWhole(replacingNewer: Bool = false) async {
        let request = session.request("GET", screenPath, query: itemQuery)
        var backoff = Backoff(initial: .milliseconds(250), maximum: session.configuration.maximumReconnectDelay)
        while endReason == nil, !Task.isCancelled {
            let answer: HTTPAnswer
            do {
                answer = try await session.transport.send(request)
            } catch {
                if error.isClosed { return end(.closed) }
                noteRequest(failed: error.description)
                try? await Task.sleep(for: backoff.next())
                continue
            }
            if answer.status != 200 {
                let problem = ServiceProblem(answer: answer)
                if let reason = EndReason(refusingScreenRequest: problem) { return end(reason) }
                noteRequest(failed: problem.reason)
                try? await Task.sleep(for: backoff.next(notBefore: answer.retryAfter))
                continue
            }
            guard let whole = try? Screen(jsonBytes: answer.body), shows(whole) else {
                noteRequest(failed: "the answer to the screen's GET is not this screen")
                try? await Task.sleep(for: backoff.next())
                continue
            }
            noteRequest(failed: nil)
            adopt(whole, replacingNewer: replacingNewer)
            return
        }
    }

    /// Whether `whole` is this handle's screen (and item).
    private func shows(_ whole: Screen) -> Bool {
        whole.id == screenID && whole.item == item
    }

    /// `screen` with what the user set and dragged since, as their controls show it.
    private func asTheUserSees(_ screen: Screen) -> Screen {
        screen.showing(shownByUser).showing(movedByUser)
    }

    /// Publishes the copy, with what the user set since, when the screen shows something
    /// else: a value or a drop the service answered for after the copy had moved past it.
    private func showCopyIfApart() {
        guard let copy else { return }
        let target = asTheUserSees(copy)
        guard target != shown else { return }
        shown = target
        publish(.screen(target))
    }

    /// Takes a whole screen as the copy, unless the copy is newer and `replacingNewer` is false.
    private func adopt(_ whole: Screen, replacingNewer: Bool = false) {
        if !replacingNewer, let copy, copy.revision > whole.revision { return }
        copy = whole
        let target = asTheUserSees(whole)
        shown = target
        publish(.screen(target))
    }

    /// Takes `next` as the copy and publishes the change set that takes the published screen
    /// there, with what the user typed since kept in it; the whole screen when that change set
    /// does not take the published screen to it.
    private func advance(to next: Screen, by changes: ChangeSet) {
        copy = next
        let target = asTheUserSees(next)
        let published = changes.showing(shownByUser)
        defer { shown = target }
        if let shown, var applied = try? published.applyChecked(to: shown) {
            applied.revision = target.revision
            applied.definition = target.definition
            if applied == target {
                publish(.changes(published, screen: target))
                return
            }
        }
        publish(.screen(target))
    }

    // MARK: The stream

    private func follow() async {
        await fetchWhole()
        var reconnection = StreamReconnection(maximum: session.configuration.maximumReconnectDelay, heartbeat: session.configuration.heartbeat)
        while endReason == nil, !Task.isCancelled {
            let (open, delivered, retryAfter) = await readStream(&reconnection)
            guard endReason == nil, !Task.isCancelled else { return }
            try? await Task.sleep(for: reconnection.wait(afterOpenFor: open, delivered: delivered, notBefore: retryAfter))
        }
    }

    /// Reads one connection of the stream, taking its `retry:` into `reconnection`: how long
    /// it was open (zero when it did not open), whether it delivered an event, and the
    /// `Retry-After` of a refusal (`429 too-many-streams`, `503`).
    private func readStream(_ reconnection: inout StreamReconnection) async -> (open: Duration, delivered: Bool, retryAfter: Duration?) {
        var headers: [(name: String, value: String)] = [("Accept", "text/event-stream")]
        // Every connection names the copy it holds, so the stream starts from it.
        // (A definition id that a header could not carry names no copy: the stream then
        // starts with the whole screen.)
        streamNamed = nil
        if let copy, let definition = copy.definition, HTTPFieldValue.isSafe(definition) {
            headers.append(("Last-Event-ID", "\(definition):\(copy.revision)"))
            streamNamed = copy.revision
        }
        let silence = session.configuration.heartbeat * 2
        let request = session.request("GET", "\(screenPath)/stream", query: itemQuery, headers: headers, idleTimeout: silence)
        let stream: HTTPStream
        do {
            stream = try await session.transport.openStream(request)
        } catch {
            if error.isClosed {
                end(.closed)
            } else {
                noteStream(failed: error.description)
            }
            return (.zero, false, nil)
        }
        let cancel = stream.cancel
        if stream.head.status != 200 {
            // A problem's document is small: more, or one that takes longer than a request
            // may, is not read on.
            let deadline = Task {
                try? await Task.sleep(for: session.configuration.requestTimeout)
                if !Task.isCancelled { cancel() }
            }
            defer { deadline.cancel() }
            var body: [UInt8] = []
            do {
                for try await chunk in stream.body {
                    body += chunk
                    if body.count > Self.maxProblemBytes {
                        cancel()
                        break
                    }
                }
            } catch {}
            let problem = ServiceProblem(answer: HTTPAnswer(status: stream.head.status, headers: stream.head.headers, body: body))
            if let reason = EndReason(refusingScreenRequest: problem) {
                end(reason)
            } else {
                noteStream(failed: "the stream was refused: \(problem.reason)")
            }
            return (.zero, false, stream.head.retryAfter)
        }
        // A page that is not an event stream (a proxy's, a portal's) is no stream: the service
        // is not reached. (A transport that gives no headers leaves it to the first field.)
        if let type = stream.head.headers["content-type"], !type.lowercased().hasPrefix("text/event-stream") {
            cancel()
            noteStream(failed: "the stream's answer is not an event stream (\(type))")
            return (.zero, false, nil)
        }
        // A stream silent for twice the heartbeat is dead, however open its connection looks.
        lastHeard = .now
        let opened = ContinuousClock.now
        let watchdog = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: silence / 4)
                guard let self, !Task.isCancelled else { return }
                if await self.silentFor() > silence {
                    await self.noteStream(failed: "the stream was silent for twice the heartbeat")
                    return cancel()
                }
            }
        }
        defer { watchdog.cancel() }
        var parser = ServerSentEventParser()
        var delivered = false
        var bytesSinceHeard = 0
        do {
            for try await chunk in stream.body {
                let linesBefore = parser.linesRead
                let outputs = parser.feed(chunk)
                // Heard: a whole line (a heartbeat's included), or a good many bytes of one
                // (a large event on a slow link); a trickle of a line that never ends is not
                // a sign of life.
                bytesSinceHeard += chunk.count
                if parser.linesRead > linesBefore || bytesSinceHeard >= Self.bytesHeard {
                    lastHeard = .now
                    bytesSinceHeard = 0
                }
                for output in outputs {
                    switch output {
                    case .retry(let milliseconds):
                        // The service's streams open with their `retry:`: it is reached.
                        noteStream(failed: nil)
                        reconnection.retry(milliseconds: milliseconds)
                    case .overflow:
                        // An event past the bound: another connection would be sent it again.
                        // The screen, fetched whole, brings the copy past it; the connection failed.
                        cancel()
                        await fetchWhole()
                        return (.zero, false, nil)
                    case .event(let event):
                        noteStream(failed: nil)
                        delivered = true
                        await receive(event)
                        if endReason != nil {
                            cancel()
                            return (ContinuousClock.now - opened, delivered, nil)
                        }
                    }
                }
            }
        } catch {
            if (error as? TransportFailure)?.isClosed == true {
                end(.closed)
            } else if endReason == nil, streamFailure == nil {
                // Cut: not connected until a stream opens again, however long the wait. (A
                // reason said already, such as the watchdog's, stays; a stream the service
                // ended is opened again at once.)
                noteStream(failed: "the stream failed: \(error)")
            }
        }
        return (ContinuousClock.now - opened, delivered, nil)
    }

    private func silentFor() -> Duration { ContinuousClock.now - lastHeard }

    /// The most of a refused stream's problem document that is read.
    static let maxProblemBytes = 64 * 1024
    /// Bytes of an unfinished line that count as a sign of life.
    static let bytesHeard = 4 * 1024

    private func receive(_ event: ServerSentEvent) async {
        guard let json = try? JSONValue.answer(Array(event.data.utf8)) else {
            // A screen or an update that cannot be read leaves the copy behind: fetch it.
            if event.type == "screen" || event.type == "changes" { await fetchWhole() }
            return
        }
        switch event.type {
        case "screen":
            // The stream sends a whole screen when it cannot bring the copy it was named
            // forward. One older than that copy says the service is behind it (a restored
            // store): it replaces the copy, unless an answer moved the copy on meanwhile
            // (then it is merely older, and the commits after it follow on this stream).
            if let whole = try? Screen(json: json), shows(whole) {
                let behind = streamNamed.map { named in whole.revision < named && copy?.revision == named } ?? false
                adopt(whole, replacingNewer: behind)
            } else {
                await fetchWhole()
            }
        case "changes":
            if let update = try? CopyUpdate(json: json) { await receive(update) } else { await fetchWhole() }
        case "gone":
            let object = json.objectValue
            let detail = object?["detail"]?.stringValue ?? ""
            switch object?["reason"]?.stringValue {
            case "screen-removed": end(.screenRemoved(detail))
            case "item-removed": end(.itemRemoved(detail))
            default: end(.sessionEnded(detail))
            }
        default:
            break
        }
    }

    // MARK: Ending

    /// Whether the handle stopped.
    var hasEnded: Bool { endReason != nil }

    private func end(_ reason: EndReason) {
        guard endReason == nil else { return }
        endReason = reason
        follower?.cancel()
        sender?.cancel()
        publisher.yield(.ended(reason))
        publisher.finish()
        finishConnectionReaders()
    }

    private func publish(_ update: ScreenUpdate) {
        guard endReason == nil else { return }
        publisher.yield(update)
    }
}
