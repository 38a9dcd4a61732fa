import HTTPTypes
import TabulaCore
import TabulaHTTP
import TabulaPlatform

/// `GET /v1/screens/{id}`: the screen at the session's revision (or at the default state,
/// without a session), 200 with its ETag or 304. Unparsed GETs come through
/// ``quickScreen(_:)``, answered from memory before the request is routed; every other GET
/// through ``getScreen(_:_:)``. Both take the screen from ``knownScreen(_:session:)``, so
/// what a GET answers is decided once.
extension APIContext {
    static let screenRoute = "/v1/screens/{id}"

    /// Where a GET finds its screen without waiting.
    enum KnownScreen {
        /// The screen at the default state (no session).
        case atDefaultState(RenderedScreen)
        /// The session's screen at its current revision, as the calling thread remembers it.
        case ofSession(ThreadScreenCache.Entry)

        /// The 200 or 304 for a client whose If-None-Match header is `tags`.
        func response(ifNoneMatch tags: String?) -> Response {
            switch self {
            case .atDefaultState(let rendered): rendered.response(ifNoneMatch: tags)
            case .ofSession(let entry): entry.response(ifNoneMatch: tags)
            }
        }
    }

    /// The screen a GET of screen `index` (its position in the catalogue) answers with, when
    /// it is known without waiting: at the default state without a session; else the
    /// calling thread's memory of it, if still current (the read counts as use), or the
    /// store's state in memory and the screen cache, remembered then for the thread. `nil`
    /// when the store must be read (the routed GET does that; the quick one declines).
    func knownScreen(_ index: Int, of served: ServedCatalogue, session: SessionKey?) -> KnownScreen? {
        guard let session else { return .atDefaultState(served.defaultScreen(served.screenTargets[index].definition)) }
        let key = ThreadScreenCache.Key(session: session, screen: index)
        if let entry = served.threadScreens.current(key) {
            entry.touch(session, in: store)
            return .ofSession(entry)
        }
        guard let cached = store.currentStateIfCached(session: session) else { return nil }
        return .ofSession(remember(cached, of: session, screen: index, in: served))
    }

    /// The session's screen at a state its watch vouches for, kept for the calling thread.
    private func remember(_ state: WatchedState, of session: SessionKey, screen index: Int, in served: ServedCatalogue) -> ThreadScreenCache.Entry {
        let definition = served.screenTargets[index].definition
        let rendered =
            cache.renderedScreenIfCached(session: session, definition, revision: state.state.revision)
            ?? cache.renderedScreen(session: session, definition, state.state)
        let entry = ThreadScreenCache.Entry(watch: state.watch, rendered: rendered)
        served.threadScreens.remember(entry, at: ThreadScreenCache.Key(session: session, screen: index))
        return entry
    }

    /// A unparsed GET's answer, when it is a prepared 200 or 304 known without waiting: the
    /// target is exactly a screen's and ``knownScreen(_:session:)`` has it. `nil` sends the
    /// request down ``getScreen(_:_:)``, which also answers every error.
    func quickScreen(_ request: UnparsedGet) -> QuickAnswer? {
        catalogues.withCurrent { quickScreen(request, of: $0) }
    }

    private func quickScreen(_ request: UnparsedGet, of served: ServedCatalogue) -> QuickAnswer? {
        // By index, not by copying a target out: a copy would retain the definition and
        // strings every thread shares, passing their reference counts' cache lines between
        // cores on every request.
        guard let index = served.screenTargets.firstIndex(where: { $0.matches(request.path) }) else { return nil }
        let tags: String?
        switch request.header("if-none-match") {
        case .absent: tags = nil
        case .one(let value): tags = String(decoding: value, as: UTF8.self)
        case .repeated: return nil
        }
        // No shape check of a token: a key matches only the exact bytes of a token the server
        // drew, so a malformed one misses, and the routed GET refuses it. Hashed once for the
        // lookups; no string is made of the token but the prefix the access log shows.
        let token: UnsafeRawBufferPointer?
        switch request.header("x-session") {
        case .repeated: return nil
        case .absent: token = nil
        case .one(let bytes): token = bytes
        }
        switch knownScreen(index, of: served, session: token.map { SessionKey(bytes: $0) }) {
        case nil:
            return nil
        case .atDefaultState(let rendered)?:
            guard let prepared = rendered.prepared(ifNoneMatch: tags) else { return nil }
            return QuickAnswer(response: prepared, route: Self.screenRoute, logContext: nil)
        case .ofSession(let entry)?:
            return entry.answer(ifNoneMatch: tags, route: Self.screenRoute, logContext: token.map(SessionToken.logPrefix))
        }
    }

    /// The routed GET: every error, and screens the store must be read for.
    func getScreen(_ context: RouteContext) throws(Problem) -> RouteAnswer {
        let served = self.served
        let definition = try served.definition(context.parameters["id"] ?? "")
        let token = try sessionToken(context.request)
        let tags = context.request.headers.value("If-None-Match")
        guard let index = served.catalogue.screens.firstIndex(where: { $0 === definition }) else {
            throw Problem.unknownScreen(definition.id, known: served.catalogue.screens.map(\.id))
        }
        let session = token.map(SessionKey.init)
        if let known = knownScreen(index, of: served, session: session) {
            return .now(known.response(ifNoneMatch: tags), session: token)
        }
        // Only a session's screen can be unknown without waiting.
        guard let token, let session else { return .now(JSONResponse.make(.internalServerError, [])) }
        return .later(session: token) { [self] reply in
            readSession(.token(token), SessionRead(), onProblem: reply.fail) { [self] snapshot in
                reply(cache.renderedScreen(session: session, definition, snapshot.current).response(ifNoneMatch: tags))
            }
        }
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
