import FuzzSupport
import TabulaCore

/// Fuzzes the definition loader and, through the definitions it accepts, the rest of the
/// pure pipeline. The input is a catalogue: definition files separated by NUL bytes (never
/// valid inside JSON, so splitting loses nothing). A rejected catalogue must say where
/// each problem is (with the bundled string tables, so `@key` finds messages); an accepted
/// one must render valid screens, and events on every row
/// shown must go through reduce, render and diff with all their promises kept.
@main enum FuzzDefinitionLoader {
    static func main() {
        FuzzDriver.run(fuzzDefinitionLoader)
    }
}

/// At most this many files per input, and events per screen, to keep each run short.
private let maxFiles = 8
private let maxEventsPerScreen = 24

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDefinitionLoader(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let parts = FuzzDriver.bytes(data, size).split(separator: 0, maxSplits: maxFiles - 1, omittingEmptySubsequences: false)
    let files = parts.enumerated().map { DefinitionFile(name: "fuzz-\($0.offset).json", bytes: Array($0.element)) }
    let catalogue: Catalogue
    do {
        catalogue = try Catalogue.load(files, strings: Fixtures.strings)
    } catch {
        checkProblems(error, files: files)
        return 0
    }
    for definition in catalogue.screens {
        exercise(definition, from: catalogue.initialState)
    }
    return 0
}

/// Every problem names one of the files, a JSON path and what to do.
private func checkProblems(_ errors: DefinitionErrors, files: [DefinitionFile]) {
    invariant(!errors.problems.isEmpty, "a catalogue was rejected without a problem")
    let names = Set(files.map(\.name))
    for problem in errors.problems {
        invariant(names.contains(problem.file), "problem names unknown file \(problem.file): \(problem)")
        invariant(problem.path.hasPrefix("$"), "problem path \(problem.path) is not a JSON path: \(problem)")
        invariant(!problem.message.isEmpty, "problem without a message at \(problem.path)")
    }
    _ = errors.description
}

/// Renders the screen, then plays a session on it: a selection, a switch flip and a
/// deletion on each row the first screen shows, each from the state the last one left.
private func exercise(_ definition: ScreenDefinition, from initialState: SessionState) {
    var state = initialState
    var screen = render(definition, state)
    PipelineChecks.checkRenderedScreen(screen, "screen \(definition.id) at its initial state")
    let rows = screen.sections.flatMap(\.rows).prefix(maxEventsPerScreen / 3)
    for row in rows {
        let isOn: Bool = if case .titleSwitch(_, let isOn) = row.content { !isOn } else { true }
        for event in [Event.select(row: row.id), .setSwitch(row: row.id, isOn: isOn), .delete(row: row.id)] {
            if let next = PipelineChecks.checkEvent(event, on: definition, state: state, screen: screen) {
                (state, screen) = next
            }
        }
    }
}
