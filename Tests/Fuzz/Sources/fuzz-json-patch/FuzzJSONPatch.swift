import FuzzSupport
import TabulaCore

@testable import TabulaService

/// Fuzzes the backend's state writes (`PATCH`/`PUT /v1/sessions/{id}/state`): the input is
/// a body, read as a JSON Patch, a JSON Merge Patch and a whole state, and each is decided
/// on the bundled catalogue's initial state as the service decides it. Nothing may crash
/// or overflow a stack (a patch once built a document 27,000 deep); a refusal is a 4xx
/// problem; a write that is accepted leaves a state within the state limits, one revision
/// on when it changed anything.
@main enum FuzzJSONPatch {
    static func main() {
        _ = Fixtures.catalogue
        FuzzDriver.run(fuzzJSONPatch)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONPatch(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let body: JSONValue
    do throws(Problem) {
        body = try JSONBody.value(FuzzDriver.bytes(data, size))
    } catch {
        invariant(error.status.code == 400, "a body was refused with \(error.status.code): \(error)")
        return 0
    }
    var patches: [StatePatch] = [.merge(body), .replace(body)]
    do throws(Problem) {
        patches.append(.operations(try JSONPatchOperation.document(body)))
    } catch {
        // 400 for what is not a JSON Patch; 422 for a pointer deeper than any document a
        // patch may build, which cannot apply.
        invariant(
            error.status.code == 400 || (error.status.code == 422 && error.slug == "patch-not-applicable"),
            "a JSON Patch was refused with \(error.status.code): \(error)")
    }
    for patch in patches {
        decide(patch)
    }
    return 0
}

private let limits = StateLimits(maxStateBytes: 8 * 1024, maxListLength: 100)

private func decide(_ patch: StatePatch) {
    let catalogue = Fixtures.catalogue
    let current = catalogue.initialState
    let write = StateWrite(
        patch: patch, condition: .any, idempotencyKey: nil, fingerprint: [], schema: catalogue.schema, stateLimits: limits)
    let (outcome, commit) = write.decide(
        SessionSnapshot(current: current, past: .found(current), answer: nil, time: 0))
    switch outcome {
    case .problem(let problem):
        invariant((400..<500).contains(problem.status.code), "a write was refused with \(problem.status.code): \(problem)")
        invariant(commit == nil, "a refused write commits")
    case .written:
        guard let state = commit?.state else { return }
        invariant(state.revision == current.revision + 1, "a change made revision \(state.revision) from \(current.revision)")
        invariant(limits.violation(of: state) == nil, "an accepted write breaks the state limits")
        invariant(
            (try? JSONParser().parse(state.valuesBytes)) != nil, "the written state does not read back as JSON")
    case .replayed:
        invariant(false, "a write without a key was replayed")
    }
}
