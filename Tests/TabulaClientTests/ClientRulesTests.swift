import TabulaModel
import Testing

@testable import TabulaClient

/// The client's pure rules: reading a stream however it is cut, and placing updates.
@Suite struct ClientRulesTests {
    @Test func aStreamReadsTheSameHoweverItsChunksSplitIt() {
        let stream = Array("retry: 3000\r\n\r\n: heartbeat\nid: d:1\nevent: screen\ndata: {\"a\":1}\n\nid: d:2\revent: changes\rdata: x\rdata: y\r\r".utf8)
        var whole = ServerSentEventParser()
        let expected = whole.feed(stream)
        #expect(
            expected == [
                .retry(milliseconds: 3000),
                .event(ServerSentEvent(type: "screen", data: #"{"a":1}"#, lastEventID: "d:1")),
                .event(ServerSentEvent(type: "changes", data: "x\ny", lastEventID: "d:2")),
            ])
        for size in 1...7 {
            var parser = ServerSentEventParser()
            var outputs: [ServerSentEventParser.Output] = []
            var index = 0
            while index < stream.count {
                outputs += parser.feed(stream[index..<min(index + size, stream.count)])
                index += size
            }
            #expect(outputs == expected, "chunks of \(size) bytes")
        }
    }

    /// An event is bounded (its lines and the line being read), heartbeats never add up to
    /// one, and only whole lines count as heard.
    @Test func anEventOverItsBoundIsAnOverflowAndEndsTheStream() {
        var parser = ServerSentEventParser(maxEventBytes: 64)
        for _ in 0..<100 { #expect(parser.feed(Array(":\n\n".utf8)).isEmpty) }
        #expect(parser.feed(Array("data: \(String(repeating: "a", count: 40))\n\n".utf8)).count == 1)
        #expect(parser.linesRead == 202)
        #expect(parser.feed(Array("data: ".utf8) + [UInt8](repeating: 0x41, count: 60)) == [.overflow])
        #expect(parser.linesRead == 202 && parser.overflowed)
        #expect(parser.feed(Array("\n\ndata: x\n\n".utf8)).isEmpty, "nothing more is read")

        var lines = ServerSentEventParser(maxEventBytes: 64)
        #expect(lines.feed(Array("data: 1234567890\ndata: 1234567890\ndata: 1234567890\ndata: 1234567890".utf8)) == [.overflow])
    }

    /// The stream connects again after its `retry:`, the wait doubling after connections that
    /// failed; one that delivered an event, or stayed open for a heartbeat (a quiet stream a
    /// proxy cut), starts from `retry:` again.
    @Test func aConnectionThatWorkedStartsTheWaitsAgain() {
        var reconnection = StreamReconnection(maximum: .seconds(8), heartbeat: .seconds(1))
        reconnection.retry(milliseconds: 3000)
        for _ in 0..<5 {
            let wait = reconnection.wait(afterOpenFor: .milliseconds(1500), delivered: false)
            #expect(wait >= .milliseconds(2250) && wait <= .seconds(3), "a quiet stream cut after a heartbeat: \(wait)")
        }
        // The connection after the last cut failed, and the next: the waits double, to the maximum.
        let failures = (0..<3).map { _ in reconnection.wait(afterOpenFor: .zero, delivered: false) }
        #expect(failures[0] >= .milliseconds(4500) && failures[1] >= .seconds(6) && failures.allSatisfy { $0 <= .seconds(8) }, "\(failures)")
        #expect(reconnection.wait(afterOpenFor: .milliseconds(10), delivered: true) <= .seconds(3))
        #expect(reconnection.wait(afterOpenFor: .milliseconds(10), delivered: false) >= .milliseconds(4500), "short and silent: failed")
        // retry: 0 is the shortest wait.
        reconnection.retry(milliseconds: 0)
        let shortest = reconnection.wait(afterOpenFor: .seconds(2), delivered: false)
        #expect(shortest >= .milliseconds(187) && shortest <= .milliseconds(250))
    }

    /// A refusal's `Retry-After` (seconds; a date is not read) makes a wait at least that
    /// long, and never past the maximum.
    @Test func aRetryAfterLengthensTheWaitUpToTheMaximum() {
        func retryAfter(_ field: String?) -> Duration? {
            HTTPAnswer(status: 503, headers: field.map { ["retry-after": $0] } ?? [:]).retryAfter
        }
        #expect(retryAfter("2") == .seconds(2))
        #expect(retryAfter(" 3\t") == .seconds(3))
        #expect(retryAfter("0") == .zero)
        #expect(retryAfter("123456789012345678901234567890") == .seconds(1_000_000_000))
        for unread in [nil, "", " ", "-1", "1.5", "1 2", "Wed, 21 Oct 2015 07:28:00 GMT", "+4"] {
            #expect(retryAfter(unread) == nil, "\(unread ?? "no field")")
        }

        // At least what the service asks, spread by a quarter above it; never past the
        // maximum, spread below it as the longest backoff is.
        for _ in 0..<50 {
            var backoff = Backoff(initial: .milliseconds(200), maximum: .seconds(8))
            let asked = backoff.next(notBefore: .seconds(2))
            #expect(asked >= .seconds(2) && asked <= .milliseconds(2500), "\(asked)")
            let tooLong = backoff.next(notBefore: .seconds(999_999_999))
            #expect(tooLong >= .seconds(6) && tooLong <= .seconds(8), "\(tooLong)")
        }
        var fresh = Backoff(initial: .milliseconds(200), maximum: .seconds(8))
        #expect(fresh.next(notBefore: nil) <= .milliseconds(200))
        var reconnection = StreamReconnection(maximum: .seconds(8), heartbeat: .seconds(1))
        let refused = reconnection.wait(afterOpenFor: .zero, delivered: false, notBefore: .seconds(5))
        #expect(refused >= .seconds(5) && refused <= .milliseconds(6250), "\(refused)")
        #expect(reconnection.wait(afterOpenFor: .zero, delivered: false, notBefore: .seconds(60)) <= .seconds(8))
    }

    @Test func updatesApplyOnceInRevisionOrder() throws {
        let copy = Screen(id: "s", title: "S", revision: 5, definition: "d1", sections: [])
        func place(_ from: Int, _ to: Int, _ definition: String = "d1") throws -> CopyOrder {
            let json = try JSONParser().parse(
                #"{"fromRevision":\#(from),"toRevision":\#(to),"definition":"\#(definition)","changes":{"rows":{"deleted":[],"inserted":[],"moved":[],"updated":[]},"sections":{"deleted":[],"inserted":[],"moved":[],"updated":[]}}}"#
            )
            return CopyOrder.place(try CopyUpdate(json: json), after: copy)
        }
        #expect(try place(5, 6) == .next)
        #expect(try place(5, 5, "d2") == .next)  // a new definition at the same revision
        #expect(try place(4, 5) == .held)
        #expect(try place(3, 4) == .held)
        #expect(try place(4, 7) == .gap)  // crossed an answer the copy has
        #expect(try place(6, 7) == .gap)  // missed one
        #expect(throws: ClientError.self) { try place(6, 5) }  // backwards: no update
        #expect(throws: ClientError.self) { try place(-1, 0) }
    }

    @Test func backoffDoublesWithJitterUpToItsMaximum() {
        var backoff = Backoff(initial: .seconds(1), maximum: .seconds(8))
        let waits = (0..<6).map { _ in backoff.next() }
        for (attempt, wait) in waits.enumerated() {
            let ceiling = min(Duration.seconds(8), .seconds(1) * (1 << attempt))
            #expect(wait <= ceiling && wait >= ceiling * 0.75)
        }
        backoff.reset()
        #expect(backoff.next() <= .seconds(1))
    }
}
