/// Pairs the items of two sequences by identity in O(n) expected time.
///
/// Valid screens have unique ids, which takes the fast path: each new id is compared with the
/// old item after the last one found, then looked up in a table of the old ids
/// (``ASCIIIDTable``, or a dictionary when an id is not ASCII).
/// If either side repeats an id the match falls back to keying each item by its id and
/// occurrence number, so the diff stays total (and `apply(diff(a, b), a) == b` holds)
/// even for screens that break the identity rule.
struct IdentityMatch {
    /// For each new item, the index of its old counterpart, or -1.
    var newToOld: [Int]
    /// For each old item, the index of its new counterpart, or -1.
    var oldToNew: [Int]

    init(old: [String], new: [String]) {
        if let match = Self.matchUnique(old: old, new: new) {
            self = match
        } else {
            self = Self.matchByOccurrence(old: old, new: new)
        }
    }

    private init(newToOld: [Int], oldToNew: [Int]) {
        self.newToOld = newToOld
        self.oldToNew = oldToNew
    }

    private static func matchUnique(old: [String], new: [String]) -> IdentityMatch? {
        if let table = ASCIIIDTable(old) {
            switch matchASCII(old: old, new: new, table: table) {
            case .matched(let match): return match
            case .repeated: return nil
            case .notASCII: break  // a dictionary compares the way `String` does
            }
        }
        var oldIndexByID = [String: Int](minimumCapacity: old.count)
        for (index, id) in old.enumerated() where oldIndexByID.updateValue(index, forKey: id) != nil {
            return nil
        }
        var newToOld = [Int](repeating: -1, count: new.count)
        var oldToNew = [Int](repeating: -1, count: old.count)
        for (index, id) in new.enumerated() {
            guard let oldIndex = oldIndexByID[id] else { continue }
            guard oldToNew[oldIndex] < 0 else { return nil }  // the new side repeats an id
            oldToNew[oldIndex] = index
            newToOld[index] = oldIndex
        }
        return IdentityMatch(newToOld: newToOld, oldToNew: oldToNew)
    }

    private enum ASCIIOutcome {
        case matched(IdentityMatch)
        /// The new side repeats an id.
        case repeated
        /// A new id is not ASCII.
        case notASCII
    }

    /// The match through the table of the old ids, which are all ASCII and unique.
    private static func matchASCII(old: [String], new: [String], table: ASCIIIDTable) -> ASCIIOutcome {
        var newToOld = [Int](repeating: -1, count: new.count)
        var oldToNew = [Int](repeating: -1, count: old.count)
        // Most items keep their order, so the old item after the last one found is tried
        // before the table: that skips a hash and a random probe for nearly every row.
        var likely = 0
        for (index, id) in new.enumerated() {
            let oldIndex: Int
            if likely < old.count && old[likely] == id {
                oldIndex = likely
            } else {
                switch table.position(of: id, in: old) {
                case .found(let found): oldIndex = found
                case .absent: continue
                case .notASCII: return .notASCII
                }
            }
            guard oldToNew[oldIndex] < 0 else { return .repeated }
            oldToNew[oldIndex] = index
            newToOld[index] = oldIndex
            likely = oldIndex + 1
        }
        return .matched(IdentityMatch(newToOld: newToOld, oldToNew: oldToNew))
    }

    private struct Occurrence: Hashable {
        var id: String
        var number: Int
    }

    private static func occurrences(_ ids: [String]) -> [Occurrence] {
        var seen: [String: Int] = [:]
        return ids.map { id in
            let number = seen[id, default: 0]
            seen[id] = number + 1
            return Occurrence(id: id, number: number)
        }
    }

    private static func matchByOccurrence(old: [String], new: [String]) -> IdentityMatch {
        var oldIndexByKey: [Occurrence: Int] = [:]
        for (index, key) in occurrences(old).enumerated() { oldIndexByKey[key] = index }
        var newToOld = [Int](repeating: -1, count: new.count)
        var oldToNew = [Int](repeating: -1, count: old.count)
        for (index, key) in occurrences(new).enumerated() {
            guard let oldIndex = oldIndexByKey[key] else { continue }
            oldToNew[oldIndex] = index
            newToOld[index] = oldIndex
        }
        return IdentityMatch(newToOld: newToOld, oldToNew: oldToNew)
    }
}
