import HTTPTypes
import TabulaCore

extension Problem {
    static func malformedJSON(_ error: JSONParseError) -> Problem {
        Problem(
            slug: "malformed-json", title: "Malformed JSON", status: .badRequest,
            detail: "the body is not valid JSON: \(error)")
    }

    static func invalidBody(_ detail: String) -> Problem {
        Problem(slug: "invalid-body", title: "Invalid Request Body", status: .badRequest, detail: detail)
    }

    static func invalidQuery(_ detail: String) -> Problem {
        Problem(slug: "invalid-query", title: "Invalid Query", status: .badRequest, detail: detail)
    }

    static func unsupportedMediaType(_ contentType: String?) -> Problem {
        Problem(
            slug: "unsupported-media-type", title: "Unsupported Media Type", status: .unsupportedMediaType,
            detail: "send the body as JSON with \"Content-Type: application/json\"\(contentType.map { " (got \"\($0)\")" } ?? " (the header is missing)")")
    }

    static let missingSession = Problem(
        slug: "missing-session", title: "Missing Session", status: .unauthorized,
        detail: "this request needs a session: create one with POST /v1/sessions and send its token in the X-Session header",
        headerFields: [.wwwAuthenticate: "X-Session"])

    static let unknownSession = Problem(
        slug: "unknown-session", title: "Unknown Session", status: .unauthorized,
        detail: "the X-Session token is not a session of this service (or it expired); create one with POST /v1/sessions",
        headerFields: [.wwwAuthenticate: "X-Session"])

    /// A backend route naming a session that does not exist (or expired, or was deleted).
    static func unknownSessionID(_ id: String) -> Problem {
        Problem(
            slug: "unknown-session", title: "Unknown Session", status: .notFound,
            detail:
                "there is no session \"\(id.clippedForDetail)\" (it never existed, expired or was deleted); ids look like s_ and 20 characters of a-z and 2-7")
    }

    /// A state that does not fit the catalogue's schema; `root` is where the state sits in
    /// the body (`$.state`).
    static func invalidState(_ error: StateDecodingError, under root: String) -> Problem {
        let path = root + error.path.dropFirst()
        return Problem(
            slug: "invalid-state", title: "Invalid State", status: .unprocessableContent,
            detail: "\(path): \(error.message); nothing was stored", extensions: ["path": .string(path)])
    }

    /// An event whose `open` action would give the client a URL of a refused scheme, made
    /// from the session's state (a definition's own URLs are checked when it loads).
    static func urlRefused(_ url: String, row: String, schemes: URLSchemes) -> Problem {
        let reason = schemes.refusal(ofURL: url) ?? "it is not one a client may be given"
        return Problem(
            slug: "invalid-state", title: "Invalid State", status: .unprocessableContent,
            detail:
                "row \"\(row.clippedForDetail)\" would open \"\(url.clippedForDetail)\", which the session's state made: \(reason); nothing was changed"
        )
    }

    static func subjectTooLong(bytes: Int, limit: Int) -> Problem {
        Problem(
            slug: "subject-too-long", title: "Subject Too Long", status: .unprocessableContent,
            detail: "subject is \(bytes) bytes, over the limit of \(limit); send the backend's id of the user, not its data",
            extensions: ["limit": .number(Double(limit)), "path": .string("$.subject")])
    }

    /// A backend write without `If-Match`.
    static let preconditionRequired = Problem(
        slug: "precondition-required", title: "Precondition Required", status: .preconditionRequired,
        detail:
            "a write of a session's state needs If-Match with the revision it was computed from, such as If-Match: \"3\" (the ETag of GET /v1/sessions/{id}), so that it cannot overwrite a change it did not see"
    )

    /// A backend write whose `If-Match` is not the session's revision; nothing was written.
    /// `namedWeakly`: the header named the revision, but in a weak tag.
    static func preconditionFailed(current: Int, namedWeakly: Bool = false) -> Problem {
        let detail =
            namedWeakly
            ? "If-Match compares entity tags strongly, so the weak tag W/\"\(current)\" never matches; send If-Match: \"\(current)\" (the session is at revision \(current))"
            : "the session is at revision \(current), not the one in If-Match; read it again (GET /v1/sessions/{id}), redo the change on what it holds, and send it with If-Match: \"\(current)\""
        return Problem(
            slug: "precondition-failed", title: "Precondition Failed", status: .preconditionFailed, detail: detail,
            extensions: ["currentRevision": .number(Double(current))])
    }

    /// A patch that cannot be applied to the session's state; nothing was written.
    static func patchFailed(_ error: StatePatchError) -> Problem {
        switch error {
        case .testFailed(let index, let path):
            Problem(
                slug: "patch-test-failed", title: "Patch Test Failed", status: .conflict,
                detail: "operation \(index) (test) found another value at \(path.clippedForDetail); nothing was written",
                extensions: ["operation": .number(Double(index)), "path": .string(path)])
        case .unappliable(let index, let path, let reason):
            Problem(
                slug: "patch-not-applicable", title: "Patch Not Applicable", status: .unprocessableContent,
                detail: "operation \(index) cannot be applied at \(path.clippedForDetail): \(reason); nothing was written",
                extensions: ["operation": .number(Double(index)), "path": .string(path)])
        case .tooLarge(let index?, let path, let limits):
            Problem(
                slug: "patch-not-applicable", title: "Patch Not Applicable", status: .unprocessableContent,
                detail:
                    "operation \(index) would make the document nest deeper than \(limits.maxDepth) or grow past \(limits.maxBytes) bytes (four times --max-state-bytes) at \(path.clippedForDetail); nothing was written",
                extensions: ["operation": .number(Double(index)), "path": .string(path)])
        case .tooLarge(nil, _, let limits):
            Problem(
                slug: "patch-not-applicable", title: "Patch Not Applicable", status: .unprocessableContent,
                detail: "the session's state is over the patch limits (\(limits.maxBytes) bytes, nesting \(limits.maxDepth)); nothing was written")
        }
    }

    static func idempotencyKeyReused(_ key: String) -> Problem {
        Problem(
            slug: "idempotency-key-reused", title: "Idempotency Key Reused", status: .unprocessableContent,
            detail: "Idempotency-Key \"\(key.clippedForDetail)\" was already used for a different write of this session; use a new key for a new write")
    }

    static func invalidHeader(_ name: String, _ detail: String) -> Problem {
        Problem(slug: "invalid-header", title: "Invalid Header", status: .badRequest, detail: detail, extensions: ["header": .string(name)])
    }

    static func unsupportedPatchType(_ contentType: String?) -> Problem {
        Problem(
            slug: "unsupported-media-type", title: "Unsupported Media Type", status: .unsupportedMediaType,
            detail:
                "send the patch as application/merge-patch+json (RFC 7396) or application/json-patch+json (RFC 6902)\(contentType.map { " (got \"\($0.clippedForDetail)\")" } ?? " (Content-Type is missing)")",
            headerFields: acceptPatch.map { [$0: "application/merge-patch+json, application/json-patch+json"] } ?? [:])
    }

    /// RFC 5789's header naming the patch formats a resource takes.
    private static let acceptPatch = HTTPField.Name("Accept-Patch")

    static func unknownScreen(_ id: String, known: [String]) -> Problem {
        Problem(
            slug: "unknown-screen", title: "Unknown Screen", status: .notFound,
            detail: "there is no screen \"\(id.clippedForDetail)\"; the screens are \(known.joined(separator: ", "))")
    }

    static func unknownRow(_ detail: String) -> Problem {
        Problem(slug: "unknown-row", title: "Unknown Row", status: .notFound, detail: detail)
    }

    /// An event's or a catch-up's revision is no longer kept. A catch-up's problem carries
    /// the current screen whole (`currentScreen`, as `GET` answers it), which the client
    /// takes instead of a change set.
    static func staleRevision(_ revision: Int, oldestKept: Int, current: Int, currentScreen: Screen? = nil) -> Problem {
        var extensions: [String: JSONValue] = ["currentRevision": .number(Double(current))]
        let advice: String
        if let screen = currentScreen.flatMap({ try? JSONParser().parse($0.jsonBytes) }) {
            extensions["currentScreen"] = screen
            advice = "take the whole screen in \"currentScreen\" instead, and continue from its revision"
        } else {
            advice = "fetch the screen again with GET and continue from its revision"
        }
        return Problem(
            slug: "stale-revision", title: "Stale Revision", status: .conflict,
            detail: "revision \(revision) can no longer be rebuilt (the oldest kept is \(oldestKept)); \(advice)",
            extensions: extensions)
    }

    static func futureRevision(_ revision: Int, current: Int) -> Problem {
        Problem(
            slug: "future-revision", title: "Future Revision", status: .conflict,
            detail: "revision \(revision) is ahead of the session's revision \(current); fetch the screen again with GET",
            extensions: ["currentRevision": .number(Double(current))])
    }

    static func unknownDefinition(_ id: String, of screen: ScreenDefinition) -> Problem {
        Problem(
            slug: "unknown-definition", title: "Unknown Definition", status: .conflict,
            detail:
                "the copy of screen \"\(screen.id)\" was rendered by definition \"\(id.clippedForDetail)\", which this service does not know (it was never served, or it is older than the versions kept); fetch the screen again with GET /v1/screens/\(screen.id) and continue from its revision and definition",
            extensions: ["currentDefinition": .string(screen.definitionID)])
    }

    /// An event the core refused, naming the row it refused (`row`): the event's own, or
    /// one whose value a selection carried, which a client can then leave out.
    static func eventNotApplicable(_ error: EventError) -> Problem {
        var problem: Problem
        switch error {
        case .unknownRow:
            problem = unknownRow(error.description)
        case .rowDisabled:
            problem = Problem(slug: "row-disabled", title: "Row Disabled", status: .unprocessableContent, detail: error.description)
        case .invalidValue:
            problem = Problem(slug: "invalid-value", title: "Invalid Value", status: .unprocessableContent, detail: error.description)
        case .invalidMove:
            problem = Problem(slug: "invalid-move", title: "Invalid Move", status: .unprocessableContent, detail: error.description)
        case .duplicateItem:
            problem = Problem(slug: "duplicate-item", title: "Duplicate Item", status: .unprocessableContent, detail: error.description)
        case .invalidItemID:
            problem = Problem(slug: "invalid-item-id", title: "Invalid Item Id", status: .unprocessableContent, detail: error.description)
        case .unknownAction:
            problem = Problem(slug: "unknown-action", title: "Unknown Action", status: .unprocessableContent, detail: error.description)
        case .rowHidden, .rowNotSelectable, .rowHasNoSwitch, .rowNotDeletable, .rowNotEditable, .rowNotMovable:
            problem = Problem(
                slug: "event-not-applicable", title: "Event Not Applicable", status: .unprocessableContent,
                detail: error.description)
        }
        if let row = error.row { problem.extensions["row"] = .string(row) }
        return problem
    }

    static func eventIDReused(_ id: String) -> Problem {
        Problem(
            slug: "event-id-reused", title: "Event Id Reused", status: .unprocessableContent,
            detail: "eventId \"\(id.clippedForDetail)\" was already used for a different event in this session; use a new id for a new event")
    }

    static func feedExpired(oldest: String) -> Problem {
        Problem(
            slug: "feed-expired", title: "Feed Expired", status: .gone,
            detail:
                "no entry kept can follow this cursor: the entries after it were removed (older than --feed-retention), or it is past the newest entry (a cursor of another store, or from before a restore or a memory store's restart); read each session again with GET /v1/sessions/{id}, then read the feed after \"oldest\", the place before the oldest entry kept",
            extensions: ["oldest": .string(oldest)])
    }

    static let missingStreamSession = Problem(
        slug: "missing-session", title: "Missing Session", status: .unauthorized,
        detail:
            "a stream shows a session's screen: create a session with POST /v1/sessions and send its token in the X-Session header, or as ?session=TOKEN from a browser's EventSource",
        headerFields: [.wwwAuthenticate: "X-Session"])

    static func tooManyStreams(limit: Int, retryAfter seconds: Int) -> Problem {
        Problem(
            slug: "too-many-streams", title: "Too Many Streams", status: .tooManyRequests,
            detail: "this instance holds its limit of \(limit) open streams (--max-streams); retry later, or on another instance",
            extensions: ["limit": .number(Double(limit))], headerFields: [.retryAfter: "\(seconds)"])
    }

    static func tooManyStreamsOfSession(limit: Int, retryAfter seconds: Int) -> Problem {
        Problem(
            slug: "too-many-streams", title: "Too Many Streams", status: .tooManyRequests,
            detail:
                "this session has its limit of \(limit) open streams (--max-streams-per-session); close one (streams a client left end within a heartbeat) and retry",
            extensions: ["limit": .number(Double(limit))], headerFields: [.retryAfter: "\(seconds)"])
    }

    /// A store that failed: 503 `store-unavailable` when a retry may succeed, 500
    /// `store-corrupt` when what it holds is damaged (nothing was written over it).
    static func store(_ error: StoreError) -> Problem {
        switch error.kind {
        case .unavailable:
            Problem(
                slug: "store-unavailable", title: "Service Unavailable", status: .serviceUnavailable,
                detail: "the session store cannot be reached (\(error.clientDescription)); retry shortly", headerFields: [.retryAfter: "1"])
        case .corrupt:
            Problem(
                slug: "store-corrupt", title: "Store Corrupt", status: .internalServerError,
                detail:
                    "the store's data for this request is damaged (\(error.clientDescription)); nothing was written over it. Retrying will not help: the operator must restore the store from a backup"
            )
        }
    }
}
