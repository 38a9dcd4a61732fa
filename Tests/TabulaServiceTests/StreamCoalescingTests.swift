import Foundation
import TabulaCore
import TabulaHTTP
import TabulaPlatform
import TabulaSamples
import TabulaTestSupport
import Testing

@testable import TabulaService

/// A stream whose reader takes nothing while commits go on: each commit replaces the
/// waiting event, so when the reader comes back it gets one event, from its own copy to
/// the newest screen, and applying it gives exactly that screen.
@Suite struct StreamCoalescingTests {
    @Test func aSlowReaderGetsOneEventFromItsCopyToTheNewestScreen() throws {
        let catalogue = try APITestServer.fixtures()
        let store = MemorySessionStore()
        let cache = ScreenCache(catalogue: catalogue, maxEntries: 100)
        var settings = StreamSettings()
        settings.heartbeatSeconds = 3600
        let hub = StreamHub(settings: settings, catalogue: catalogue, store: store, cache: cache)
        defer { hub.close() }
        let definition = try #require(catalogue.screen(id: "settings"))
        let token = SessionToken.make()
        let stream = ScreenStream(definition: definition, session: SessionKey(token), tick: 0)
        try hub.register(stream, sessionID: "s_test")
        var state = catalogue.initialState
        let first = render(definition, state)
        stream.start(
            opening: [], copy: ScreenCopy(definitionID: definition.definitionID, revision: state.revision, screen: first),
            server: ServerStream(source: stream), onClose: { hub.unregister($0) })
        var random = SplitMix64(seed: 7)
        var commits = 0
        while commits < 30 {
            guard let (event, _) = RandomEvents.pick(on: render(definition, state), &random),
                let next = try? reduce(state, event, definition).state, next.revision != state.revision
            else { continue }
            state = next
            commits += 1
            hub.committed(.token(token), state)
        }
        // The hub's thread offers each commit; wait until the newest is the waiting one.
        let deadline = ContinuousClock.now + .seconds(5)
        while stream.waitingRevision != state.revision && ContinuousClock.now < deadline { usleep(2_000) }
        guard case .bytes(let bytes) = stream.nextChunk() else {
            Issue.record("nothing to send after \(commits) commits")
            return
        }
        let events = String(decoding: bytes, as: UTF8.self).components(separatedBy: "\n\n").filter { !$0.isEmpty }
        #expect(events.count == 1, "one event, not one per commit: \(events.count)")
        let data = try #require(events.first?.split(separator: "\n").first { $0.hasPrefix("data: ") }?.dropFirst(6))
        let answer = try #require(try JSONParser().parse(Array(data.utf8)).objectValue)
        #expect(answer["fromRevision"]?.intValue == 0 && answer["toRevision"]?.intValue == state.revision)
        let changes = try ChangeSet(json: try #require(answer["changes"]))
        var copy = try changes.applyChecked(to: first)
        copy.revision = state.revision
        #expect(copy == render(definition, state))
        #expect(stream.copy?.revision == state.revision)
        guard case .wait = stream.nextChunk() else {
            Issue.record("a second event after the one that took the copy to the newest screen")
            return
        }
    }
}
