// Core micro benchmark: prints the time of diff for 1k / 10k / 100k rows with 1% content
// edits and 1% moves, flat and in 20 sections, and the time per row to show linear growth.
// Run it with Scripts/bench-core (a release build); figures are medians of repeated runs.
#if canImport(Glibc)
import Glibc
#endif
import TabulaCore
import TabulaSamples

/// Median wall time of `body` over `repetitions` runs, in microseconds.
func medianMicroseconds(repetitions: Int, _ body: () -> Void) -> Double {
    let clock = ContinuousClock()
    var samples: [Double] = []
    for _ in 0..<repetitions {
        let elapsed = clock.measure(body)
        samples.append(Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12)
    }
    samples.sort()
    return samples[samples.count / 2]
}

func format(_ value: Double, decimals: Int) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    var text = "\(rounded)"
    if let dot = text.firstIndex(of: ".") {
        let fraction = text[text.index(after: dot)...]
        if fraction.count < decimals { text += String(repeating: "0", count: decimals - fraction.count) }
    } else if decimals > 0 {
        text += "." + String(repeating: "0", count: decimals)
    }
    return text
}

func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
}

var sink = 0
let sizes = [1_000, 10_000, 100_000]
print("diff: 1% content edits + 1% moves (median of repeated runs, release build)")
print("layout        rows   time (ms)   ns/row   moved rows  reported moves  updates")
for sectionCount in [1, 20] {
    var nsPerRowAtSmallest = 0.0
    for rows in sizes {
        let old = SyntheticScreens.screen(rowCount: rows, sectionCount: sectionCount)
        let (new, movedRows) = SyntheticScreens.edited(old, editPercent: 1, movePercent: 1, seed: 42)
        let changes = diff(old: old, new: new)
        guard changes.apply(to: old) == new else {
            print("error: apply(diff(a, b), a) != b for \(rows) rows")
            exit(1)
        }
        let repetitions = rows >= 100_000 ? 15 : 41
        let micros = medianMicroseconds(repetitions: repetitions) { sink &+= diff(old: old, new: new).rows.moved.count }
        let nsPerRow = micros * 1000 / Double(rows)
        if rows == sizes[0] { nsPerRowAtSmallest = nsPerRow }
        let layout = sectionCount == 1 ? "flat" : "\(sectionCount) sections"
        print(
            layout.padding(12) + pad("\(rows)", 7) + pad(format(micros / 1000, decimals: 3), 12)
                + pad(format(nsPerRow, decimals: 1), 9) + pad("\(movedRows)", 13) + pad("\(changes.rows.moved.count)", 16)
                + pad("\(changes.rows.updated.count)", 9))
        if rows == sizes.last {
            print("  growth: ns/row at \(rows) rows is \(format(nsPerRow / nsPerRowAtSmallest, decimals: 2))x that at \(sizes[0]) rows (1.00x = linear)")
        }
    }
}
print("reference (issue 8, same machine class): DifferenceKit 1.3.0 takes 4.2 ms flat / 5.4 ms in 20 sections at 10,000 rows, 82 / 90 ms at 100,000, reporting ~99% of rows as moved")
if sink == -1 { print(sink) }

extension String {
    func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
