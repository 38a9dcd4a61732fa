import TabulaCore

/// What a backend's write of a session's state comes to.
enum StateWriteOutcome: Sendable {
    /// `{"fromRevision", "toRevision"}`, and the revision it leaves.
    case written(body: [UInt8], toRevision: Int)
    case replayed(StoredAnswer)
    case problem(Problem)
}

/// The revisions an `If-Match` header admits (RFC 9110, section 13.1.1): `*`, or the
/// session's revision as a strong entity tag, `"N"`. The revisions of weak tags, `W/"N"`,
/// are kept apart: they never match, and a refusal says why.
enum RevisionCondition: Sendable, Equatable {
    case any
    case revisions(Set<Int>, weak: Set<Int> = [])

    /// Reads an If-Match value; `nil` when it is not a list of entity tags or `*` alone.
    init?(ifMatch value: String) {
        let members = value.split(separator: ",")
        guard !members.isEmpty else { return nil }
        var revisions: Set<Int> = []
        var weak: Set<Int> = []
        for member in members {
            let tag = member.trimmingPrefix(while: { $0 == " " || $0 == "\t" })
            let trimmed = tag.prefix { $0 != " " && $0 != "\t" }
            guard tag.dropFirst(trimmed.count).allSatisfy({ $0 == " " || $0 == "\t" }) else { return nil }
            if trimmed == "*" {
                // `If-Match = "*" / #entity-tag`: a star in a list is neither.
                guard members.count == 1 else { return nil }
                self = .any
                return
            }
            // A weak tag never matches under strong comparison, which If-Match uses.
            let opaque = trimmed.hasPrefix("W/") ? trimmed.dropFirst(2) : trimmed
            guard opaque.count >= 2, opaque.first == "\"", opaque.last == "\"" else { return nil }
            // Strong comparison is of the tags' characters: only the revision as the ETag
            // writes it ("3", never "03" or "+3") is that revision's tag.
            let text = opaque.dropFirst().dropLast()
            if let revision = Int(text), revision >= 0, String(revision) == text {
                if trimmed.hasPrefix("W/") { weak.insert(revision) } else { revisions.insert(revision) }
            }
        }
        self = .revisions(revisions, weak: weak)
    }

    func admits(_ revision: Int) -> Bool {
        switch self {
        case .any: true
        case .revisions(let revisions, _): revisions.contains(revision)
        }
    }

    /// Whether the header names `revision` in a weak tag only.
    func namesWeakly(_ revision: Int) -> Bool {
        if case .revisions(let revisions, let weak) = self { return weak.contains(revision) && !revisions.contains(revision) }
        return false
    }
}

/// What the pure core decides of a backend's write on a session as one read found it:
/// replay a known idempotency key, check the revision against `If-Match`, apply the patch
/// to the state's values, check what changed against the catalogue's state keys and the
/// limits, and say what to commit. A write that changes nothing leaves the revision, as an
/// event does.
struct StateWrite: SessionDecision {
    let patch: StatePatch
    let condition: RevisionCondition
    /// The `Idempotency-Key` header, if any.
    let idempotencyKey: String?
    /// Identifies the request, so that another write reusing the key is told apart.
    let fingerprint: [UInt8]
    let schema: StateSchema
    let stateLimits: StateLimits

    /// Where the first answer to a key is kept: beside the answers to client event ids,
    /// which never hold a control character (`EventRequest`), so the two never meet.
    static func answerID(_ key: String) -> String { "\u{1}" + key }

    var read: SessionRead { SessionRead(eventID: idempotencyKey.map(Self.answerID)) }

    static func refused(_ problem: Problem) -> StateWriteOutcome { .problem(problem) }

    func decide(_ snapshot: SessionSnapshot) -> (outcome: StateWriteOutcome, commit: SessionCommit?) {
        if let key = idempotencyKey, let stored = snapshot.answer {
            return (stored.fingerprint == fingerprint ? .replayed(stored) : .problem(.idempotencyKeyReused(key)), nil)
        }
        let current = snapshot.current
        guard condition.admits(current.revision) else {
            return (.problem(.preconditionFailed(current: current.revision, namedWeakly: condition.namesWeakly(current.revision))), nil)
        }
        var next: SessionState
        do throws(Problem) {
            next = try patched(current)
        } catch {
            return (.problem(error), nil)
        }
        var changedKeys: [String] = []
        next.forEachChangedKey(since: current) { changedKeys.append($0) }
        let changed = !changedKeys.isEmpty
        next.revision = current.revision + (changed ? 1 : 0)
        if changed, let violation = stateLimits.violation(of: next) {
            return (.problem(.stateLimit(violation, cause: "this write")), nil)
        }
        var writer = JSONWriter(reservingCapacity: 48)
        writer.beginObject()
        writer.key("fromRevision"); writer.int(current.revision)
        writer.key("toRevision"); writer.int(next.revision)
        writer.endObject()
        let body = writer.bytes
        guard changed || idempotencyKey != nil else { return (.written(body: body, toRevision: next.revision), nil) }
        let commit = SessionCommit(
            expectedRevision: current.revision, change: changed ? (next, .patch(changedKeys: changedKeys)) : nil,
            event: EventRecord(
                eventID: idempotencyKey.map(Self.answerID), kind: "patch", payload: Self.payload(changedKeys), revision: next.revision,
                time: snapshot.time),
            answer: idempotencyKey.map { _ in StoredAnswer(fingerprint: fingerprint, status: 200, body: body, time: snapshot.time) },
            changedKeys: changedKeys)
        return (.written(body: body, toRevision: next.revision), commit)
    }

    /// The state after the patch, at the current revision. Keys the patch leaves as they
    /// are keep their stored values (also keys no definition declares any more, and values
    /// of a type a reload changed); keys it changes must be declared and of their declared
    /// type; keys it removes take their default. `PUT` gives every declared key: the given
    /// value or the default; so a state sent back as `GET /v1/sessions/{id}` read it is
    /// taken as it is.
    private func patched(_ current: SessionState) throws(Problem) -> SessionState {
        let stored = current.valuesJSON
        let result: JSONValue
        do throws(StatePatchError) {
            result = try patch.apply(to: stored, limits: PatchLimits(stateLimits))
        } catch {
            throw Problem.patchFailed(error)
        }
        guard case .object(let members) = result else {
            throw Problem.invalidState(StateDecodingError(path: "$", message: "the state must be an object, not \(result.typeName)"), under: "$")
        }
        let before = stored.objectValue ?? JSONObject()
        var given = JSONObject()
        for (key, value) in members.pairs where before[key] != value { given[key] = value }
        let decoded = try decode(.object(given), revision: current.revision)
        if case .replace = patch {
            // Every declared key the body leaves out takes its default (the decoding gave
            // them); the client's context and the form marks are the client's, and the
            // backend's whole state leaves them.
            var replaced = decoded
            for key in members.keys where given[key] == nil { replaced.values[key] = current.values[key] }
            replaced.client = current.client
            replaced.marks = current.marks
            return replaced
        }
        var next = current
        for key in given.keys { next.values[key] = decoded.values[key] }
        for key in before.keys where members[key] == nil {
            next.values[key] = schema.declarations[key]?.defaultValue
        }
        return next
    }

    private func decode(_ json: JSONValue, revision: Int) throws(Problem) -> SessionState {
        do throws(StateDecodingError) {
            return try schema.state(from: json, revision: revision)
        } catch {
            throw Problem.invalidState(error, under: "$")
        }
    }

    /// The log's record of a write: `{"changedKeys": [...]}`.
    private static func payload(_ changedKeys: [String]) -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 64)
        writer.beginObject()
        writer.key("changedKeys")
        writer.array(changedKeys.sorted()) { writer, key in writer.string(key) }
        writer.endObject()
        return writer.bytes
    }
}
