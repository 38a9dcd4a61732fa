/// Reads small decisions from fuzzer bytes, front to back. Past the end every read gives
/// zero, so any input, however short, decodes to something.
public struct FuzzBytes {
    private let bytes: [UInt8]
    private var position = 0

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Whether every byte has been read.
    public var isAtEnd: Bool { position >= bytes.count }

    public mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    public mutating func bool() -> Bool {
        byte() & 1 == 1
    }

    /// A number in `range`, from one byte (two for ranges wider than 256 values).
    public mutating func int(in range: ClosedRange<Int>) -> Int {
        let width = range.upperBound - range.lowerBound + 1
        let raw = width > 256 ? Int(byte()) << 8 | Int(byte()) : Int(byte())
        return range.lowerBound + raw % width
    }

    /// An index into a collection of `count` elements; `nil` when it is empty.
    public mutating func index(below count: Int) -> Int? {
        count > 0 ? int(in: 0...(count - 1)) : nil
    }

    /// One of `choices`, which must not be empty.
    public mutating func pick<Element>(_ choices: [Element]) -> Element {
        precondition(!choices.isEmpty, "pick needs at least one choice")
        return choices[int(in: 0...(choices.count - 1))]
    }
}
