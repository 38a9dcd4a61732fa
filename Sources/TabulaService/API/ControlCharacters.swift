extension StringProtocol {
    /// Whether the text holds an ASCII control character (U+0000–U+001F, U+007F): what an
    /// `eventId`, an `Idempotency-Key` and a log line may not carry as it is.
    ///
    /// Eight bytes at a time, as the access log asks it twice of every request
    /// (`Sequence.contains` over the UTF-8 view cost several times more,
    /// `Scripts/bench-instructions`). A word has a byte below 0x20 when subtracting 0x20 from
    /// each byte borrows into a high bit the byte did not have; it has 0x7F when the word xor
    /// 0x7F7F… has a zero byte, found the same way.
    var hasASCIIControlCharacter: Bool {
        utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard let base = bytes.baseAddress else { return false }
            let raw = UnsafeRawPointer(base)
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highs: UInt64 = 0x8080_8080_8080_8080
            var index = 0
            while index + 8 <= bytes.count {
                let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                let delete = word ^ (ones &* 0x7F)
                if ((word &- ones &* 0x20) & ~word | (delete &- ones) & ~delete) & highs != 0 { return true }
                index += 8
            }
            while index < bytes.count {
                if bytes[index] < 0x20 || bytes[index] == 0x7F { return true }
                index += 1
            }
            return false
        } ?? utf8.contains { $0 < 0x20 || $0 == 0x7F }
    }
}
