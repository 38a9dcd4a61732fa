/// Marks one longest strictly increasing subsequence of `values`.
///
/// Patience sorting with predecessor links: O(n log n) time, O(n) memory. Among equally
/// long subsequences the result is deterministic. The diff uses it to find the largest
/// set of kept items that did not change their relative order, so only the rest are moves.
func longestIncreasingSubsequenceMask(_ values: [Int]) -> [Bool] {
    let count = values.count
    var mask = [Bool](repeating: false, count: count)
    guard count > 0 else { return mask }
    // tails[k]: index into `values` of the smallest tail of an increasing run of length k + 1.
    var tails: [Int] = []
    tails.reserveCapacity(count)
    var predecessor = [Int](repeating: -1, count: count)
    for index in 0..<count {
        let value = values[index]
        // Fast path for the common case of an already ascending sequence.
        if let last = tails.last, values[last] < value {
            predecessor[index] = last
            tails.append(index)
            continue
        }
        var low = 0
        var high = tails.count
        while low < high {
            let middle = (low + high) / 2
            if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
        }
        if low > 0 { predecessor[index] = tails[low - 1] }
        if low == tails.count { tails.append(index) } else { tails[low] = index }
    }
    var cursor = tails.last ?? -1
    while cursor >= 0 {
        mask[cursor] = true
        cursor = predecessor[cursor]
    }
    return mask
}

/// ``longestIncreasingSubsequenceMask(_:)``, marking one that holds `values[pinned]` when a
/// subsequence of the longest length holds it: the longest run below it before it, the
/// element, and the longest run above it after it. Otherwise any longest one: the length,
/// which counts the moves, comes first. The diff pins the row a user dragged, so that a
/// change set that may leave it where it was dropped does.
func longestIncreasingSubsequenceMask(_ values: [Int], pinning pinned: Int) -> [Bool] {
    let longest = longestIncreasingSubsequenceMask(values)
    guard values.indices.contains(pinned), !longest[pinned] else { return longest }
    let pinnedValue = values[pinned]
    let beforeIndexes = values.indices.prefix(pinned).filter { values[$0] < pinnedValue }
    let afterIndexes = values.indices.suffix(from: pinned + 1).filter { values[$0] > pinnedValue }
    let before = longestIncreasingSubsequenceMask(beforeIndexes.map { values[$0] })
    let after = longestIncreasingSubsequenceMask(afterIndexes.map { values[$0] })
    let throughPinned = before.count(where: { $0 }) + 1 + after.count(where: { $0 })
    guard throughPinned == longest.count(where: { $0 }) else { return longest }
    var mask = [Bool](repeating: false, count: values.count)
    for (position, index) in beforeIndexes.enumerated() where before[position] { mask[index] = true }
    mask[pinned] = true
    for (position, index) in afterIndexes.enumerated() where after[position] { mask[index] = true }
    return mask
}
