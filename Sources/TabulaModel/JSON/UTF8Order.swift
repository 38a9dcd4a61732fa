extension String {
    /// Whether this string sorts before `other` in ascending order of their UTF-8 bytes: the
    /// order of keys on the wire and in stored state. (`<` orders by Unicode scalars after
    /// normalization, which differs for text that is not in NFC.) Compares the bytes where
    /// they lie; `utf8.lexicographicallyPrecedes` walked the views index by index, ten times
    /// the instructions for short keys.
    package func utf8Precedes(_ other: String) -> Bool {
        let answer = utf8.withContiguousStorageIfAvailable { left in
            other.utf8.withContiguousStorageIfAvailable { right in Self.precedes(left, right) }
        }
        return (answer ?? nil) ?? utf8.lexicographicallyPrecedes(other.utf8)
    }

    private static func precedes(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Bool {
        for index in 0..<Swift.min(left.count, right.count) where left[index] != right[index] {
            return left[index] < right[index]
        }
        return left.count < right.count
    }
}
