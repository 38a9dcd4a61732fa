// Decodes a screen and a change set (one JSON document per line on standard input), applies
// the change set and prints the screen's row count: what an app does. The same file is built
// twice, linking TabulaModel and linking TabulaCore (Scripts/bench-link-size).
import TabulaModel

let screenLine = readLine() ?? ""
let changesLine = readLine() ?? ""
do {
    let screen = try Screen(jsonBytes: Array(screenLine.utf8))
    let changes = try ChangeSet(jsonBytes: Array(changesLine.utf8))
    let next = try changes.applyChecked(to: screen)
    print("\(next.rowCount) rows, \(changes.batchUpdates.reconfiguredRows.count) reconfigured")
} catch {
    print("failed: \(error)")
}
