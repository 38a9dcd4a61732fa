import FuzzSupport

@testable import TabulaCore
@testable import TabulaService

/// Fuzzes the decoder of event request bodies (`POST /v1/screens/{id}/selection`, `/switch`,
/// `/deletion`, `/edit`, `/move`, `/action`): the input is a body, decoded as each of the
/// six kinds. A refusal must be a 400 problem document that is itself valid JSON; what the
/// quick reader of flat objects reads must be what the full parser reads; an accepted body must keep every
/// limit the decoder promises, encode back to itself, and go through the pure pipeline
/// (reduce, render, diff) on each bundled screen as the service would run it.
@main enum FuzzEventDecoder {
    static func main() {
        // Load and render the fixtures before the first input, so that it is timed like the rest.
        _ = BundledScreens.initial
        FuzzDriver.run(fuzzEventDecoder)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEventDecoder(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let body = FuzzDriver.bytes(data, size)
    checkQuickReading(body)
    for kind in [EventRequest.Kind.selection, .switch, .deletion, .edit, .move, .action] {
        let request: EventRequest
        do throws(Problem) {
            request = try EventRequest.decode(body, kind: kind)
        } catch {
            invariant(error.status.code == 400, "a body was refused with \(error.status.code), not 400: \(error)")
            invariant((try? JSONParser().parse(error.jsonBytes)) != nil, "the problem document is not JSON: \(error)")
            continue
        }
        checkLimits(request, kind: kind)
        checkRoundTrip(request)
        for screen in BundledScreens.initial {
            applyToCore(request, screen)
        }
    }
    return 0
}

/// Whatever the quick reader of flat objects reads, the full parser reads the same: the
/// same members in the same order.
private func checkQuickReading(_ body: [UInt8]) {
    guard let members = FlatJSONObject.members(of: body) else { return }
    let object = (try? JSONParser(maxDepth: 16).parse(body))?.objectValue
    invariant(
        object.map { object in
            object.keys == members.map(\.key) && members.allSatisfy { member in object[member.key] == member.value }
        } ?? false,
        "read quickly as \(members), but the parser reads \(String(describing: object))")
}

/// The limits `EventRequest.decode` documents in its messages.
private func checkLimits(_ request: EventRequest, kind: EventRequest.Kind) {
    invariant(request.kind == kind, "decoded as \(request.kind), asked for \(kind)")
    invariant((request.isOn != nil) == (kind == .switch), "isOn is \(String(describing: request.isOn)) on a \(kind) event")
    invariant((request.value != nil) == (kind == .edit), "value is \(String(describing: request.value)) on a \(kind) event")
    invariant(request.values.isEmpty || kind == .selection, "values on a \(kind) event")
    invariant((request.destination != nil) == (kind == .move), "to is \(String(describing: request.destination)) on a \(kind) event")
    invariant((request.action != nil) == (kind == .action), "action is \(String(describing: request.action)) on a \(kind) event")
    if let action = request.action {
        invariant(!action.isEmpty && action.utf8.count <= EventRequest.maxActionIDLength, "action id out of limits: \(action.utf8.count) bytes")
    }
    invariant((request.revision ?? 0) >= 0, "negative revision \(String(describing: request.revision))")
    if let eventID = request.eventID {
        invariant(!eventID.isEmpty && eventID.utf8.count <= EventRequest.maxEventIDLength, "eventId out of limits: \(eventID.utf8.count) bytes")
    }
    switch request.target {
    case .row(let id):
        invariant(!id.isEmpty && id.utf8.count <= EventRequest.maxRowIDLength, "row id out of limits: \(id.utf8.count) bytes")
    case .indexPath(let path):
        invariant(path.section >= 0 && path.row >= 0, "negative indexPath \(path)")
        invariant(request.revision != nil, "an indexPath was accepted without a revision")
        invariant(request.definition != nil, "an indexPath was accepted without a definition")
    }
    let fingerprint = request.fingerprint(screen: "screen")
    let parsed = try? JSONParser().parse(fingerprint)
    invariant(parsed?.canonicalBytes == fingerprint, "the fingerprint is not canonical JSON: \(String(decoding: fingerprint, as: UTF8.self))")
}

/// The request, written back as a body, decodes to the same request.
private func checkRoundTrip(_ request: EventRequest) {
    var object = JSONObject()
    switch request.target {
    case .row(let id): object["row"] = .string(id)
    case .indexPath(let path): object["indexPath"] = ["section": .number(Double(path.section)), "row": .number(Double(path.row))]
    }
    if let isOn = request.isOn { object["isOn"] = .bool(isOn) }
    if let value = request.value { object["value"] = value }
    if let to = request.destination { object["to"] = ["section": .number(Double(to.section)), "row": .number(Double(to.row))] }
    if let action = request.action { object["action"] = .string(action) }
    if !request.values.isEmpty {
        var values = JSONObject()
        for (row, value) in request.values { values[row] = value }
        object["values"] = .object(values)
    }
    if let revision = request.revision { object["revision"] = .number(Double(revision)) }
    if let definition = request.definition { object["definition"] = .string(definition) }
    if let eventID = request.eventID { object["eventId"] = .string(eventID) }
    let body = JSONValue.object(object).canonicalBytes
    let decoded = try? EventRequest.decode(body, kind: request.kind)
    invariant(decoded == request, "\(request) written as \(String(decoding: body, as: UTF8.self)) decodes to \(String(describing: decoded))")
}

/// Resolves the request's row on a screen at revision 0, as the event route does, and
/// runs the event through the pure pipeline.
private func applyToCore(_ request: EventRequest, _ screen: BundledScreens.Initial) {
    guard (request.revision ?? 0) == 0 else { return }  // only revision 0 exists here
    let rowID: String
    switch request.target {
    case .row(let id): rowID = id
    case .indexPath(let path):
        guard let row = screen.screen.row(at: path) else { return }
        rowID = row.id
    }
    let event: Event =
        switch request.kind {
        case .selection: .select(row: rowID)
        case .switch: .setSwitch(row: rowID, isOn: request.isOn ?? false)
        case .deletion: .delete(row: rowID)
        case .edit: .edit(row: rowID, value: request.value ?? .null)
        case .move: .move(row: rowID, to: request.destination ?? RowPath(section: 0, row: 0))
        case .action: .action(row: rowID, action: request.action ?? "")
        }
    _ = PipelineChecks.checkEvent(event, on: screen.definition, state: screen.state, screen: screen.screen)
}

/// The bundled screens, each rendered once at a new session's state.
enum BundledScreens {
    struct Initial: Sendable {
        let definition: ScreenDefinition
        let state: SessionState
        let screen: Screen
    }

    static let initial: [Initial] = Fixtures.catalogue.screens.map { definition in
        let state = Fixtures.catalogue.initialState
        return Initial(definition: definition, state: state, screen: render(definition, state))
    }
}
