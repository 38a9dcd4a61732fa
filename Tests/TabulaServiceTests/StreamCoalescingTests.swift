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
    /// A hub with one started stream of the settings screen, at the initial state; no
    /// server takes its bytes but the test (``ScreenStream/nextChunk()``).
    final class Fixture {
        let catalogue: Catalogue
        let hub: StreamHub
        let definition: ScreenDefinition
        let token = SessionToken.make()
        let stream: ScreenStream
        let copy: ScreenCopy
        /// Kept here: the stream holds its server weakly.
        let server: ServerStream

        init() throws {
            catalogue = try APITestServer.fixtures()
            var settings = StreamSettings()
            settings.heartbeatSeconds = 3600
            hub = StreamHub(
                settings: settings, store: MemorySessionStore(), cache: ScreenCache(CacheBounds(entries: 100, bytes: 1 << 20), limitCounts: LimitCounts()),
                catalogue: catalogue)
            definition = try #require(catalogue.screen(id: "settings"))
            stream = ScreenStream(definition: definition, session: SessionKey(token), tick: 0)
            try hub.register(stream, sessionID: "s_test")
            copy = ScreenCopy(definitionID: definition.definitionID, revision: 0, screen: render(definition, catalogue.initialState))
            server = ServerStream(source: stream)
            stream.start(opening: [], copy: copy, current: copy, server: server, onClose: { [hub] in hub.unregister($0) })
        }

        deinit { hub.close() }
    }

    @Test func aSlowReaderGetsOneEventFromItsCopyToTheNewestScreen() throws {
        let fixture = try Fixture()
        let (hub, definition, token, stream) = (fixture.hub, fixture.definition, fixture.token, fixture.stream)
        var state = fixture.catalogue.initialState
        let first = fixture.copy.screen
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
        _ = eventually { stream.waitingRevision == state.revision }
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
        var applied = try changes.applyChecked(to: first)
        applied.revision = state.revision
        #expect(applied == render(definition, state))
        #expect(stream.copy?.revision == state.revision)
        guard case .wait = stream.nextChunk() else {
            Issue.record("a second event after the one that took the copy to the newest screen")
            return
        }
    }

    /// A commit delivered after a newer one (jobs from different threads, or a store read
    /// racing a commit) never takes the client back, even when the newer one changed
    /// nothing on the screen.
    @Test func anOlderCommitDeliveredLateIsIgnored() throws {
        let fixture = try Fixture()
        let (hub, definition, token, stream, copy) = (fixture.hub, fixture.definition, fixture.token, fixture.stream, fixture.copy)
        let initial = fixture.catalogue.initialState
        let on = try reduce(initial, .setSwitch(row: "bluetooth", isOn: true), definition).state
        let off = try reduce(on, .setSwitch(row: "bluetooth", isOn: false), definition).state
        #expect(off.revision == 2 && render(definition, off).sections == copy.screen.sections)
        hub.committed(.token(token), off)
        let atTwo = ScreenCopy(definitionID: definition.definitionID, revision: 2, screen: copy.screen)
        _ = eventually { !stream.wants(atTwo) }
        #expect(!stream.wants(atTwo) && stream.waitingRevision == nil, "revision 2 changes nothing on the screen")
        hub.committed(.token(token), on)
        // Something that must not happen has no moment to wait for: give the hub's thread time.
        usleep(100_000)
        #expect(stream.waitingRevision == nil, "revision 1, delivered after 2, would take the client back")
        guard case .wait = stream.nextChunk() else {
            Issue.record("an event was sent")
            return
        }
    }

    /// A state older than the one an item screen's stream was offered, delivered late (a
    /// re-read that finished after a commit), says nothing of the item: a stream opened on
    /// an item that state lacks goes on, rather than end with `gone` `item-removed`.
    @Test func anOlderStateWithoutTheItemDoesNotEndItsStream() throws {
        let catalogue = try APITestServer.fixtures(withInbox: true)
        var settings = StreamSettings()
        settings.heartbeatSeconds = 3600
        let hub = StreamHub(
            settings: settings, store: MemorySessionStore(),
            cache: ScreenCache(CacheBounds(entries: 100, bytes: 1 << 20), limitCounts: LimitCounts()), catalogue: catalogue)
        defer { hub.close() }
        let definition = try #require(catalogue.screen(id: "message"))
        var current = catalogue.initialState
        current.revision = 2
        let item = try #require(current.records("messages").first?.id)
        var older = current
        older.revision = 1
        older.values["messages"] = .list(current.records("messages").filter { $0.id != item })
        let token = SessionToken.make()
        let stream = ScreenStream(definition: definition, item: item, session: SessionKey(token), tick: 0)
        try hub.register(stream, sessionID: "s_test")
        let copy = ScreenCopy(definitionID: definition.definitionID, revision: 2, screen: render(definition, current, item: item))
        let server = ServerStream(source: stream)
        stream.start(opening: [], copy: copy, current: copy, server: server, onClose: { [hub] in hub.unregister($0) })
        hub.committed(.token(token), older)
        // Something that must not happen has no moment to wait for: give the hub's thread time.
        usleep(100_000)
        guard case .wait = stream.nextChunk() else {
            Issue.record("the stream sent something (its end?) for a state older than its copy")
            return
        }
        #expect(hub.count == 1, "the stream still counts")
    }
}
