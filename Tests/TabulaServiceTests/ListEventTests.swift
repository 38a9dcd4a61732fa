import Foundation
import TabulaCore
import TabulaSamples
import TabulaTestSupport
import Testing

@testable import TabulaService

/// A playlist whose songs can be searched, reordered, liked with a switch or a swipe, and
/// swiped away.
func playlistCatalogue() throws -> Catalogue {
    let songs = (0..<8).map { #"{"id": "s\#($0)", "title": "Song \#($0)", "liked": false}"# }.joined(separator: ", ")
    return try Catalogue.load([
        DefinitionFile(
            name: "playlist.json",
            bytes: Array(
                #"""
                {"id": "playlist", "title": "Playlist",
                 "state": {"query": "", "songs": [\#(songs)]},
                 "sections": [
                   {"id": "top", "rows": [{"id": "search", "kind": "textField", "title": "Search", "text": "{{query}}", "onEdit": {"set": "query"}}]},
                   {"id": "songs", "rows": [
                     {"id": "heading", "kind": "basic", "title": "Songs"},
                     {"forEach": "songs", "id": "song-{{item.id}}", "kind": "titleSwitch", "title": "{{item.title}}", "isOn": "item.liked",
                      "onSwitch": {"set": "item.liked"}, "filter": "contains(item.title, query)", "onMove": {"move": "songs"},
                      "leadingActions": [{"id": "like", "title": "Like", "visibleWhen": "!item.liked", "onAction": {"set": {"item.liked": true}}}],
                      "trailingActions": [{"id": "remove", "title": "Remove {{item.title}}", "style": "destructive", "onAction": {"remove": "songs"}}],
                      "accessibilityLabel": "{{item.title}}", "accessibilityValue": "{{item.liked ? 'liked' : 'not liked'}}"},
                     {"id": "total", "kind": "basic", "title": "{{songs.count}} songs, {{count(songs, item.liked)}} liked"},
                     {"id": "add", "kind": "button", "title": "Add", "onSelect": {"append": {"to": "songs", "item": {"title": "New {{songs.count}}", "liked": true}}}}
                   ]}
                 ]}
                """#.utf8))
    ])
}

/// `POST /v1/screens/{id}/move` and `/action` on each store: random reorders whose answers
/// start from the copy the user dropped the row in, the refusals, swipe actions, item
/// fields set by switches and actions, and the accessibility texts.
@Suite struct ListEventTests {
    func server(_ factory: StoreFactory) throws -> APITestServer {
        let catalogue = try playlistCatalogue()
        return try APITestServer(catalogue: catalogue, store: try factory.open(catalogue)) { configuration in
            configuration.backendKey = APIKey(BackendAPITests.key)
        }
    }

    func screen(_ api: APITestServer, _ session: String) throws -> Screen {
        try Screen(jsonBytes: try api.send("GET", "/v1/screens/playlist", session: session).body)
    }

    func send(_ api: APITestServer, _ kind: String, _ session: String, _ body: String) throws -> RawHTTPResponse {
        try api.send("POST", "/v1/screens/playlist/\(kind)", session: session, json: body)
    }

    /// The songs' order in the session's state, as the backend reads it.
    func storedOrder(_ api: APITestServer, _ id: String) throws -> [String] {
        let record = try api.send("GET", "/v1/sessions/\(id)", headers: [BackendAPITests.authorization])
        let songs = record.json.objectValue?["state"]?.objectValue?["songs"]?.arrayValue ?? []
        return songs.compactMap { $0.objectValue?["id"]?.stringValue }
    }

    @Test(arguments: StoreKind.allCases)
    func randomMovesAnswerFromTheDroppedCopyAndReorderTheList(_ kind: StoreKind) throws {
        let factory = try StoreFactory(kind)
        let api = try server(factory)
        defer { api.store.close() }
        let (session, id) = try api.newBackendSession()
        var random = SplitMix64(seed: 5454)
        for step in 0..<40 {
            if step % 10 == 9 {
                // Now and then a search hides some songs: they keep their places.
                let query = ["", "1", "Song", "2"][Int(random.next() % 4)]
                #expect(try send(api, "edit", session, #"{"row": "search", "value": "\#(query)"}"#).status == 200)
            }
            let copy = try screen(api, session)
            let rows = copy.sections[1].rows
            let songRows = rows.indices.filter { rows[$0].id.hasPrefix("song-") }
            guard let first = songRows.first, let last = songRows.last else { continue }
            let source = songRows[Int(random.next() % UInt64(songRows.count))]
            let destination = first + Int(random.next() % UInt64(last - first + 1))
            let row = rows[source].id
            let answer = try send(
                api, "move", session,
                #"{"row": "\#(row)", "to": {"section": 1, "row": \#(destination)}, "revision": \#(copy.revision), "definition": "\#(copy.definition ?? "")"}"#)
            #expect(answer.status == 200, "\(answer.bodyText)")
            let result = try #require(answer.json.objectValue)
            let changes = try ChangeSet(json: try #require(result["changes"]))
            #expect(changes.rows.moved.isEmpty, "never a second move of the row: \(answer.bodyText)")
            var seen = try #require(copy.moving(row: row, to: RowPath(section: 1, row: destination)))
            seen = try changes.applyChecked(to: seen)
            seen.revision = result["toRevision"]?.intValue ?? -1
            let current = try screen(api, session)
            #expect(seen == current)
            #expect(result["toRevision"]?.intValue == (source == destination ? copy.revision : copy.revision + 1))
            // The list's order is the order the screen shows (hidden songs aside).
            let shownOrder = current.sections[1].rows.map(\.id).filter { $0.hasPrefix("song-") }.map { String($0.dropFirst(5)) }
            #expect(try storedOrder(api, id).filter(shownOrder.contains) == shownOrder)
        }
    }

    /// From a copy another device's reorder made stale, the dropped row still stays where
    /// the user dropped it when a change set with as few moves allows: here, moving s2 and
    /// s3 rather than s4 and the dropped s1.
    @Test func aRowDroppedInAStaleCopyStaysWhereItWasDropped() throws {
        let factory = try StoreFactory(.memory)
        let api = try server(factory)
        defer { api.store.close() }
        let session = try api.newSession()
        let stale = try screen(api, session)
        // Another device: s4 (row 5) after s0 (row 1).
        #expect(try send(api, "move", session, #"{"row": "song-s4", "to": {"section": 1, "row": 2}}"#).status == 200)
        // This device, from its stale copy: s1 (row 2) dropped after s4 (row 5).
        let answer = try send(
            api, "move", session,
            #"{"row": "song-s1", "to": {"section": 1, "row": 5}, "revision": \#(stale.revision), "definition": "\#(stale.definition ?? "")"}"#)
        #expect(answer.status == 200, "\(answer.bodyText)")
        let result = try #require(answer.json.objectValue)
        let changes = try ChangeSet(json: try #require(result["changes"]))
        var seen = try #require(stale.moving(row: "song-s1", to: RowPath(section: 1, row: 5)))
        #expect(changes.rows.moved.map { seen.sections[$0.from.section].rows[$0.from.row].id } == ["song-s2", "song-s3"], "\(answer.bodyText)")
        seen = try changes.applyChecked(to: seen)
        seen.revision = result["toRevision"]?.intValue ?? -1
        #expect(seen == (try screen(api, session)))
    }

    @Test(arguments: StoreKind.allCases)
    func movesOutsideTheListAreRefused(_ kind: StoreKind) throws {
        let factory = try StoreFactory(kind)
        let api = try server(factory)
        defer { api.store.close() }
        let (session, id) = try api.newBackendSession()
        let cases: [(String, Int, String)] = [
            (#"{"row": "song-s2", "to": {"section": 0, "row": 0}}"#, 422, "invalid-move"),
            (#"{"row": "song-s2", "to": {"section": 1, "row": 0}}"#, 422, "invalid-move"),
            (#"{"row": "song-s2", "to": {"section": 1, "row": 9}}"#, 422, "invalid-move"),
            (#"{"row": "song-s2", "to": {"section": 1, "row": 10}}"#, 422, "invalid-move"),
            (#"{"row": "song-s2", "to": {"section": 1, "row": 11}}"#, 422, "invalid-move"),
            (#"{"row": "song-s2", "to": {"section": 5, "row": 1}}"#, 422, "invalid-move"),
            (#"{"row": "total", "to": {"section": 1, "row": 3}}"#, 422, "event-not-applicable"),
            (#"{"row": "song-s2"}"#, 400, "invalid-body"),
            (#"{"row": "song-s2", "to": {"section": 1}}"#, 400, "invalid-body"),
            (#"{"row": "song-s2", "to": {"section": 1, "row": 2}, "value": 1}"#, 400, "invalid-body"),
            (#"{"row": "song-s9", "to": {"section": 1, "row": 2}}"#, 404, "unknown-row"),
        ]
        for (body, status, slug) in cases {
            let answer = try send(api, "move", session, body)
            #expect(answer.status == status && answer.problemSlug == slug, "\(body): \(answer.bodyText)")
        }
        // A drop at the row's own place (song s2 is row 3: after the heading) changes nothing.
        let same = try send(api, "move", session, #"{"row": "song-s2", "to": {"section": 1, "row": 3}}"#)
        #expect(same.status == 200 && same.json.objectValue?["toRevision"]?.intValue == 0, "\(same.bodyText)")
        #expect(try storedOrder(api, id) == (0..<8).map { "s\($0)" })
        // Right after the heading is first in the list.
        let first = try send(api, "move", session, #"{"row": "song-s5", "to": {"section": 1, "row": 1}, "eventId": "m-1"}"#)
        #expect(first.status == 200, "\(first.bodyText)")
        #expect(try storedOrder(api, id) == ["s5", "s0", "s1", "s2", "s3", "s4", "s6", "s7"])
        // A retry replays the answer and moves nothing again.
        let retry = try send(api, "move", session, #"{"row": "song-s5", "to": {"section": 1, "row": 1}, "eventId": "m-1"}"#)
        #expect(retry.body == first.body)
        #expect(try storedOrder(api, id) == ["s5", "s0", "s1", "s2", "s3", "s4", "s6", "s7"])
        let feed = try api.feed("?limit=10") { $0.bodyText.contains(#""kind":"move","row":"song-s5","screen":"playlist","to":{"row":1,"section":1}"#) }
        #expect(feed.bodyText.contains(#""kind":"move","row":"song-s5","screen":"playlist","to":{"row":1,"section":1}"#), "\(feed.bodyText)")
    }

    @Test(arguments: StoreKind.allCases)
    func swipeActionsRunWhileTheRowShowsThem(_ kind: StoreKind) throws {
        let factory = try StoreFactory(kind)
        let api = try server(factory)
        defer { api.store.close() }
        let (session, id) = try api.newBackendSession()
        let song = try #require(try screen(api, session).sections[1].rows.first { $0.id == "song-s3" })
        #expect(song.movable && song.leadingActions == [SwipeAction(id: "like", title: "Like")])
        #expect(song.trailingActions == [SwipeAction(id: "remove", title: "Remove Song 3", style: .destructive)])
        #expect(song.accessibility == RowAccessibility(label: "Song 3", value: "not liked"))
        let liked = try send(api, "action", session, #"{"row": "song-s3", "action": "like"}"#)
        #expect(liked.status == 200, "\(liked.bodyText)")
        let likedChanges = try ChangeSet(json: try #require(liked.json.objectValue?["changes"]))
        #expect(likedChanges.rows.updated.map(\.row.id).sorted() == ["song-s3", "total"])
        let likedRow = try #require(try screen(api, session).sections[1].rows.first { $0.id == "song-s3" })
        #expect(likedRow.leadingActions.isEmpty && likedRow.content == .titleSwitch(title: "Song 3", isOn: true))
        #expect(likedRow.accessibility.value == "liked")
        for (body, status, slug) in [
            (#"{"row": "song-s3", "action": "like"}"#, 422, "unknown-action"),
            (#"{"row": "song-s3", "action": "nope"}"#, 422, "unknown-action"),
            (#"{"row": "total", "action": "like"}"#, 422, "unknown-action"),
            (#"{"row": "song-s3"}"#, 400, "invalid-body"),
            (#"{"row": "song-s3", "action": ""}"#, 400, "invalid-body"),
            (#"{"row": "song-s3", "action": 1}"#, 400, "invalid-body"),
        ] {
            let answer = try send(api, "action", session, body)
            #expect(answer.status == status && answer.problemSlug == slug, "\(body): \(answer.bodyText)")
        }
        // A switch sets the item's field too.
        let unliked = try send(api, "switch", session, #"{"row": "song-s3", "isOn": false}"#)
        #expect(unliked.status == 200)
        #expect(try screen(api, session).sections[1].rows.first { $0.id == "song-s3" }?.leadingActions.map(\.id) == ["like"])
        let removed = try send(api, "action", session, #"{"row": "song-s3", "action": "remove"}"#)
        let removedChanges = try ChangeSet(json: try #require(removed.json.objectValue?["changes"]))
        #expect(removedChanges.rows.deleted == [RowPath(section: 1, row: 4)])
        #expect(try storedOrder(api, id) == ["s0", "s1", "s2", "s4", "s5", "s6", "s7"])
        let feed = try api.feed("?limit=10") { $0.bodyText.contains(#""action":"remove","kind":"action","row":"song-s3""#) }
        #expect(feed.bodyText.contains(#""action":"remove","kind":"action","row":"song-s3""#), "\(feed.bodyText)")
    }

    @Test(arguments: StoreKind.allCases)
    func appendedItemsGetIdsThatRetriesKeep(_ kind: StoreKind) throws {
        let factory = try StoreFactory(kind)
        let api = try server(factory)
        defer { api.store.close() }
        let (session, id) = try api.newBackendSession()
        let first = try send(api, "selection", session, #"{"row": "add", "eventId": "add-1"}"#)
        #expect(first.status == 200, "\(first.bodyText)")
        let changes = try ChangeSet(json: try #require(first.json.objectValue?["changes"]))
        let inserted = try #require(changes.rows.inserted.first)
        #expect(changes.rows.inserted.count == 1 && inserted.path == RowPath(section: 1, row: 9))
        #expect(inserted.row.content == .titleSwitch(title: "New 8", isOn: true))
        let retry = try send(api, "selection", session, #"{"row": "add", "eventId": "add-1"}"#)
        #expect(retry.body == first.body)
        var order = try storedOrder(api, id)
        #expect(order.count == 9 && "song-\(order[8])" == inserted.row.id)
        #expect(order[8].count == 16 && order[8].utf8.allSatisfy { (97...122).contains($0) || (50...55).contains($0) })
        #expect(try send(api, "selection", session, #"{"row": "add"}"#).status == 200)
        order = try storedOrder(api, id)
        #expect(order.count == 10 && Set(order).count == 10)
        let total = try screen(api, session).sections[1].rows.first { $0.id == "total" }
        #expect(total?.content == .basic(title: "10 songs, 2 liked"))
    }

    /// The inbox's search and "show more" under random edits of the query, the limit and
    /// the list (the backend's patches), on each store: every answer's change set, applied
    /// to the copy before it, gives what `GET` answers.
    @Test(arguments: StoreKind.allCases)
    func randomSearchesAndPagesKeepTheCopyExact(_ kind: StoreKind) throws {
        let factory = try StoreFactory(kind)
        let catalogue = try APITestServer.fixtures(withInbox: true)
        let api = try APITestServer(catalogue: catalogue, store: try factory.open(catalogue)) { configuration in
            configuration.backendKey = APIKey(BackendAPITests.key)
        }
        defer { api.store.close() }
        let (session, id) = try api.newBackendSession()
        func screen() throws -> Screen { try Screen(jsonBytes: try api.send("GET", "/v1/screens/inbox", session: session).body) }
        var copy = try screen()
        var random = SplitMix64(seed: 545)
        let queries = ["", "l", "lu", "lun", "lunch", "re", "ann", "ANN LEE", "é", "x"]
        for step in 0..<30 {
            let answer: RawHTTPResponse
            switch random.next() % 4 {
            case 0, 1:
                let query = queries[Int(random.next() % UInt64(queries.count))]
                answer = try api.send("POST", "/v1/screens/inbox/edit", session: session, json: #"{"row": "inbox-search", "value": "\#(query)"}"#)
                // The field already shows what was typed: the answer starts from that copy.
                copy = copy.showing(.string(query), inRow: "inbox-search")
            case 2 where copy.path(ofRow: "inbox-more") != nil:
                answer = try api.send("POST", "/v1/screens/inbox/selection", session: session, json: #"{"row": "inbox-more"}"#)
            default:
                // The backend marks a random message read, or removes one.
                let record = try api.send("GET", "/v1/sessions/\(id)", headers: [BackendAPITests.authorization])
                let revision = try #require(record.json.objectValue?["revision"]?.intValue)
                let index = Int(random.next() % 200)
                let operation =
                    random.next() % 2 == 0
                    ? #"[{"op": "replace", "path": "/messages/\#(index)/read", "value": true}]"#
                    : #"[{"op": "remove", "path": "/messages/\#(index)"}]"#
                let patch = try api.send(
                    "PATCH", "/v1/sessions/\(id)/state", headers: [BackendAPITests.authorization, "If-Match: \"\(revision)\""], json: operation,
                    contentType: "application/json-patch+json")
                #expect(patch.status == 200 || patch.status == 422, "\(patch.bodyText)")
                answer = try api.send("GET", "/v1/screens/inbox/changes?since=\(copy.revision)&definition=\(copy.definition ?? "")", session: session)
            }
            #expect(answer.status == 200, "step \(step): \(answer.bodyText)")
            let result = try #require(answer.json.objectValue)
            var next = try ChangeSet(json: try #require(result["changes"])).applyChecked(to: copy)
            next.revision = try #require(result["toRevision"]?.intValue)
            let current = try screen()
            #expect(next == current, "step \(step)")
            copy = current
        }
    }
}
