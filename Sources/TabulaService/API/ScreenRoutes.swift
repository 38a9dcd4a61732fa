import TabulaPlatform
import HTTPTypes
import TabulaCore
import TabulaHTTP

/// `GET /v1/screens`, `GET /v1/screens/{id}` and `GET /v1/screens/{id}/changes?since=N`.
extension APIContext {
    func listScreens(_ context: RouteContext, _ responder: Responder) {
        guard let list = screenList else {
            return send(JSONResponse.make(.internalServerError, []), context, responder)
        }
        send(Response(list), context, responder)
    }

    func getScreen(_ context: RouteContext, _ responder: Responder) {
        let definition: ScreenDefinition
        let token: String?
        do throws(Problem) {
            definition = try self.definition(context.parameters["id"] ?? "")
            token = try sessionToken(context.request)
        } catch {
            return send(error.response(), context, responder)
        }
        guard let token else {
            let rendered = cache.defaultScreen(definition, catalogue.initialState)
            return send(answer(rendered, context.request), context, responder)
        }
        let session = SessionKey(token)
        if let cached = store.currentStateIfCached(session: session) {
            return send(answer(cache.screen(session: session, definition, cached.state), context.request), context, responder, token)
        }
        store.read(session: token, { $0.current }) { [self] result in
            switch result {
            case .failure(let error): send(Problem.storeUnavailable(error).response(), context, responder, token)
            case .success(nil): send(Problem.unknownSession.response(), context, responder, token)
            case .success(let state?):
                send(answer(cache.screen(session: session, definition, state), context.request), context, responder, token)
            }
        }
    }

    /// `getScreen`'s answer to a plain GET, when it is a prepared 200 or 304 known without
    /// waiting: the target is exactly a screen's, and the session (if any) has its state in
    /// memory. `nil` sends the request down `getScreen`, which also answers every error.
    func quickScreen(_ request: PlainGet) -> QuickAnswer? {
        // By index, not by copying a target out: a copy would retain the definition and
        // strings every thread shares, passing their reference counts' cache lines between
        // cores on every request.
        guard let index = screenTargets.firstIndex(where: { $0.matches(request.path) }) else { return nil }
        let tags: String?
        switch request.header("if-none-match") {
        case .absent: tags = nil
        case .one(let value): tags = String(decoding: value, as: UTF8.self)
        case .repeated: return nil
        }
        switch request.header("x-session") {
        case .repeated:
            return nil
        case .absent:
            let rendered = cache.defaultScreen(screenTargets[index].definition, catalogue.initialState)
            guard let prepared = rendered.prepared(ifNoneMatch: tags) else { return nil }
            return QuickAnswer(response: prepared, route: Self.screenRoute, logContext: nil)
        case .one(let bytes):
            // No shape check: a key matches only the exact bytes of a token the server drew,
            // so a malformed token misses here, and the full path refuses it. Hashed once
            // for the lookups; no string is made of the token but the prefix the access log
            // shows, short enough to need no allocation.
            let session = SessionKey(bytes: bytes)
            guard let entry = sessionScreen(session, index) else { return nil }
            return entry.answer(ifNoneMatch: tags, route: Self.screenRoute, logContext: SessionToken.logPrefix(bytes))
        }
    }

    /// A session's screen as the calling thread last answered it, if still current (the
    /// read counts as use); else from the store's state and the screen cache, remembered for
    /// the thread. `nil` when the store does not know the state without waiting.
    private func sessionScreen(_ session: SessionKey, _ index: Int) -> ThreadScreenCache.Entry? {
        let key = ThreadScreenCache.Key(session: session, screen: index)
        if let entry = threadScreens.current(key) {
            entry.touch(session, in: store)
            return entry
        }
        guard let cached = store.currentStateIfCached(session: session) else { return nil }
        let rendered = cache.cachedScreen(session: session, screen: screenTargets[index].id, revision: cached.state.revision)
            ?? cache.screen(session: session, screenTargets[index].definition, cached.state)
        let entry = ThreadScreenCache.Entry(watch: cached.watch, rendered: rendered)
        threadScreens.remember(entry, at: key)
        return entry
    }

    static let screenRoute = "/v1/screens/{id}"

    /// The rendered screen, or 304 when the client already has these bytes.
    private func answer(_ rendered: RenderedScreen, _ request: Request) -> Response {
        let tags = request.headers.value("If-None-Match")
        if let prepared = rendered.prepared(ifNoneMatch: tags) { return Response(prepared) }
        if let tags, ETag.matches(tags, rendered.etag) {
            return Response(status: .notModified, headerFields: ScreenCache.notModifiedFields(rendered.etag))
        }
        return Response(status: .ok, headerFields: ScreenCache.okFields(rendered.etag), body: rendered.bytes)
    }

    func getChanges(_ context: RouteContext, _ responder: Responder) {
        let definition: ScreenDefinition
        let token: String?
        let since: Int
        let copyDefinition: String?
        do throws(Problem) {
            definition = try self.definition(context.parameters["id"] ?? "")
            since = try Self.since(context.request)
            copyDefinition = try Self.definitionQuery(context.request)
            token = try sessionToken(context.request)
        } catch {
            return send(error.response(), context, responder)
        }
        if let copy = definitions.copy(copyDefinition, of: definition) {
            return sendChanges(definition, since: since, from: copy, token: token, context, responder)
        }
        definitions.lookUp(copyDefinition ?? "", of: definition) { [self] copy in
            switch copy {
            case .failure(let error): send(Problem.storeUnavailable(error).response(), context, responder, token)
            case .success(let copy): sendChanges(definition, since: since, from: copy, token: token, context, responder)
            }
        }
    }

    /// The changes from the client's copy (`copy` at revision `since`) to the current screen.
    private func sendChanges(
        _ definition: ScreenDefinition, since: Int, from copy: DefinitionArchive.Copy, token: String?,
        _ context: RouteContext, _ responder: Responder
    ) {
        guard let token else {
            let initial = catalogue.initialState
            guard since == 0 else {
                return send(Problem.futureRevision(since, current: 0).response(), context, responder)
            }
            do throws(Problem) {
                let changes = diff(old: render(try copy.definition(current: definition), initial), new: cache.defaultScreen(definition, initial).screen)
                return send(JSONResponse.make(.ok, Self.changesBody(definition, since, 0, changes)), context, responder)
            } catch {
                return send(error.response(), context, responder)
            }
        }
        store.read(session: token, { view in (view.current, view.state(at: since)) }) { [self] result in
            switch result {
            case .failure(let error): send(Problem.storeUnavailable(error).response(), context, responder, token)
            case .success(nil): send(Problem.unknownSession.response(), context, responder, token)
            case .success(let (current, lookup)?):
                switch lookup {
                case .future(let revision):
                    send(Problem.futureRevision(since, current: revision).response(), context, responder, token)
                case .tooOld(let oldest):
                    send(Problem.staleRevision(since, oldestKept: oldest, current: current.revision).response(), context, responder, token)
                case .found(let old):
                    do throws(Problem) {
                        let newScreen = cache.screen(session: SessionKey(token), definition, current).screen
                        let changes = diff(old: render(try copy.definition(current: definition), old), new: newScreen)
                        send(JSONResponse.make(.ok, Self.changesBody(definition, since, current.revision, changes)), context, responder, token)
                    } catch {
                        send(error.response(), context, responder, token)
                    }
                }
            }
        }
    }

    /// `definition`: optional, the id of the definition that rendered the client's copy.
    static func definitionQuery(_ request: Request) throws(Problem) -> String? {
        switch request.queryValue("definition") {
        case .absent:
            return nil
        case .present(let text?) where !text.isEmpty && text.utf8.count <= EventRequest.maxDefinitionLength:
            return text
        case .present, .malformed:
            throw Problem.invalidQuery("definition must be the \"definition\" of the screen the client shows")
        }
    }

    /// `since`: required, a whole number of at least 0.
    static func since(_ request: Request) throws(Problem) -> Int {
        switch request.queryValue("since") {
        case .absent:
            throw Problem.invalidQuery("add ?since=N, the revision the client shows (0 for a fresh client)")
        case .malformed, .present(nil):
            throw Problem.invalidQuery("since must be a whole number of at least 0")
        case .present(let text?):
            guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let value = Int(text) else {
                throw Problem.invalidQuery("since must be a whole number of at least 0, not \"\(text.prefix(40))\"")
            }
            return value
        }
    }

    static func changesBody(_ definition: ScreenDefinition, _ from: Int, _ to: Int, _ changes: ChangeSet) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("changes"); writer.write(changes)
        writer.key("definition"); writer.string(definition.definitionID)
        writer.key("fromRevision"); writer.int(from)
        writer.key("screen"); writer.string(definition.id)
        writer.key("toRevision"); writer.int(to)
        writer.endObject()
        return writer.bytes
    }

    /// Sends a response labelled with the route and, when known, a short session prefix.
    func send(_ response: Response, _ context: RouteContext, _ responder: Responder, _ token: String? = nil) {
        var labelled = response
        labelled.route = context.pattern
        // Only the prefix the access log shows, as on the quick path (a small string).
        labelled.logContext = token.map(SessionToken.logPrefix)
        responder.send(labelled)
    }
}

/// A screen's `GET /v1/screens/{id}` target as a client sends it (no percent-encoding),
/// as bytes to compare.
struct ScreenTarget: Sendable {
    let definition: ScreenDefinition
    /// The definition's id, kept here so that a lookup by it does not retain the definition.
    let id: String
    /// The target's bytes, in memory `storage` owns: comparing with them retains nothing
    /// (every thread compares with them on every quick `GET`, and an array's reference
    /// count is written by each `withUnsafeBytes`).
    private nonisolated(unsafe) let bytes: UnsafeRawBufferPointer
    private let storage: TargetBytes

    init(_ definition: ScreenDefinition) {
        self.definition = definition
        id = definition.id
        let target = Array("/v1/screens/\(definition.id)".utf8)
        storage = TargetBytes(target)
        bytes = UnsafeRawBufferPointer(start: storage.bytes.baseAddress, count: target.count)
    }

    /// Compared with memcmp: elementsEqual walks the buffers a byte at a time.
    func matches(_ target: UnsafeRawBufferPointer) -> Bool {
        guard target.count == bytes.count else { return false }
        guard let own = bytes.baseAddress, let other = target.baseAddress else { return bytes.isEmpty }
        return memcmp(own, other, bytes.count) == 0
    }

    /// Bytes allocated once and freed with the last target that refers to them.
    private final class TargetBytes: Sendable {
        nonisolated(unsafe) let bytes: UnsafeMutableRawBufferPointer

        init(_ contents: [UInt8]) {
            bytes = .allocate(byteCount: max(1, contents.count), alignment: 1)
            contents.withUnsafeBytes { bytes.copyMemory(from: $0) }
        }

        deinit {
            bytes.deallocate()
        }
    }
}
