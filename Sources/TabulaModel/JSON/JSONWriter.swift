/// Appends compact JSON to a byte buffer.
///
/// The writer inserts commas and colons itself; callers emit keys and values in the
/// order they want them on the wire. Tabula always emits object keys in ascending byte
/// order, which is what makes its encoding deterministic. Numbers that are whole and
/// below 2^53 are written as integers; others in Swift's shortest round-trip form.
///
/// It writes into memory of its own rather than an `[UInt8]`: an array checks that its
/// storage is unique on every append (a call into the runtime), a cost paid per byte of
/// every change set. Being noncopyable, the writer needs no such check; ``bytes`` copies
/// the result out once.
package struct JSONWriter: ~Copyable, @unchecked Sendable {
    private var start: UnsafeMutablePointer<UInt8>
    private var count = 0
    private var capacity: Int
    /// Whether what is written next follows a sibling in its container and needs a comma.
    /// One flag is enough: a container's first element follows its opening bracket, a key's
    /// value follows the colon, and everything else follows a complete value.
    private var needsComma = false

    package init(reservingCapacity capacity: Int = 256) {
        self.capacity = max(capacity, 16)
        start = .allocate(capacity: self.capacity)
    }

    deinit {
        start.deallocate()
    }

    /// What has been written so far.
    package var bytes: [UInt8] {
        Array(UnsafeBufferPointer(start: start, count: count))
    }

    package mutating func beginObject() {
        separate()
        appendByte(UInt8(ascii: "{"))
    }

    package mutating func endObject() {
        appendByte(UInt8(ascii: "}"))
        needsComma = true
    }

    package mutating func beginArray() {
        separate()
        appendByte(UInt8(ascii: "["))
    }

    package mutating func endArray() {
        appendByte(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Writes an object key; the next value written belongs to it.
    @_disfavoredOverload
    package mutating func key(_ key: String) {
        separate()
        appendQuoted(key)
        appendByte(UInt8(ascii: ":"))
    }

    /// Writes an object key spelled in source, which must need no escaping (no quote,
    /// backslash or control character): copied as it is, without a scan.
    package mutating func key(_ key: StaticString) {
        separate()
        // A one-character literal may be stored as a scalar rather than as bytes.
        guard key.hasPointerRepresentation else {
            appendByte(UInt8(ascii: "\""))
            append(key)
            append(#"":"#)
            return
        }
        let length = key.utf8CodeUnitCount
        reserve(length + 3)
        start[count] = UInt8(ascii: "\"")
        (start + count + 1).update(from: key.utf8Start, count: length)
        count += length + 1
        start[count] = UInt8(ascii: "\"")
        start[count + 1] = UInt8(ascii: ":")
        count += 2
    }

    package mutating func string(_ value: String) {
        separate()
        appendQuoted(value)
        needsComma = true
    }

    package mutating func bool(_ value: Bool) {
        separate()
        if value {
            append("true")
        } else {
            append("false")
        }
        needsComma = true
    }

    package mutating func null() {
        separate()
        append("null")
        needsComma = true
    }

    package mutating func int(_ value: Int) {
        separate()
        appendInteger(value)
        needsComma = true
    }

    /// Writes a finite number. Non-finite values, which JSON cannot express, are written as `null`.
    package mutating func number(_ value: Double) {
        separate()
        if !value.isFinite {
            append("null")
        } else if value == value.rounded(.towardZero) && abs(value) < 9_007_199_254_740_992 {
            appendInteger(Int(value))
        } else {
            var text = value.description
            text.withUTF8 { appendBytes($0) }
        }
        needsComma = true
    }

    /// Writes an array with one element per item, each written by `element`.
    package mutating func array<Items: Sequence>(_ items: Items, _ element: (inout JSONWriter, Items.Element) -> Void) {
        beginArray()
        for item in items { element(&self, item) }
        endArray()
    }

    /// Writes the member `"name":[...]`, its key and empty value spelled in source as
    /// `#""name":[]"#` (a key that needs no escaping): an empty list is that literal, a full
    /// one its key part and then one element per item. One copy for the key either way,
    /// instead of quotes, name and colon one by one; most lists of a change set are empty.
    package mutating func list<Items: Collection>(
        _ emptyMember: StaticString, _ items: Items, _ element: (inout JSONWriter, Items.Element) -> Void
    ) {
        separate()
        if items.isEmpty {
            append(emptyMember)
            needsComma = true
            return
        }
        emptyMember.withUTF8Buffer { member in
            assert(member.count > 2 && member[member.count - 2] == UInt8(ascii: "[") && member[member.count - 1] == UInt8(ascii: "]"))
            appendBytes(UnsafeBufferPointer(rebasing: member.dropLast(2)))
        }
        array(items, element)
    }

    /// Writes bytes that already are one complete JSON value (for example a cached encoding).
    package mutating func rawValue(_ json: [UInt8]) {
        separate()
        json.withUnsafeBufferPointer { appendBytes($0) }
        needsComma = true
    }

    /// Writes the comma before an element that follows another, and resets the flag: what
    /// comes next is a new container's first element or a key's value until a value ends.
    private mutating func separate() {
        if needsComma {
            appendByte(UInt8(ascii: ","))
            needsComma = false
        }
    }

    /// Makes room for `extra` more bytes, doubling the memory when it grows.
    @inline(__always)
    private mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(toHold: count + extra) }
    }

    private mutating func grow(toHold needed: Int) {
        let newCapacity = max(needed, capacity * 2)
        let newStart = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newStart.update(from: start, count: count)
        start.deallocate()
        start = newStart
        capacity = newCapacity
    }

    @inline(__always)
    private mutating func appendByte(_ byte: UInt8) {
        reserve(1)
        start[count] = byte
        count += 1
    }

    private mutating func appendBytes(_ buffer: UnsafeBufferPointer<UInt8>) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        reserve(buffer.count)
        (start + count).update(from: base, count: buffer.count)
        count += buffer.count
    }

    private mutating func append(_ literal: StaticString) {
        literal.withUTF8Buffer { appendBytes($0) }
    }

    private mutating func appendInteger(_ value: Int) {
        // Room for a sign and the 19 digits of the largest magnitude.
        reserve(20)
        if value == 0 {
            start[count] = UInt8(ascii: "0")
            count += 1
            return
        }
        if value < 0 {
            start[count] = UInt8(ascii: "-")
            count += 1
        }
        var magnitude = value.magnitude
        var digits = 0
        var rest = magnitude
        repeat {
            digits += 1
            rest /= 10
        } while rest > 0
        var position = count + digits - 1
        while magnitude > 0 {
            start[position] = UInt8(ascii: "0") + UInt8(magnitude % 10)
            magnitude /= 10
            position -= 1
        }
        count += digits
    }

    /// One pass: runs that need no escape are copied whole, found eight bytes at a time.
    private mutating func appendQuoted(_ string: String) {
        var string = string
        string.withUTF8 { utf8 in
            reserve(utf8.count + 2)
            start[count] = UInt8(ascii: "\"")
            count += 1
            if let base = utf8.baseAddress {
                var runStart = 0
                while true {
                    let escape = Self.nextEscape(in: base, from: runStart, end: utf8.count)
                    appendBytes(UnsafeBufferPointer(start: base + runStart, count: escape - runStart))
                    guard escape < utf8.count else { break }
                    appendEscape(base[escape])
                    runStart = escape + 1
                }
            }
            appendByte(UInt8(ascii: "\""))
        }
    }

    /// The position of the first byte from `position` on that JSON requires escaping (a
    /// quote, a backslash or a control character), or `end`. Each word of eight bytes is
    /// tested at once: for each kind, `(x - 0x01…) & ~x & 0x80…` flags the bytes that are
    /// zero (of `x` = the word, the word xor quotes, the word xor backslashes) or, for
    /// `x - 0x20…`, below 0x20; the lowest flag is exact.
    @inline(__always)
    private static func nextEscape(in bytes: UnsafePointer<UInt8>, from position: Int, end: Int) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        var position = position
        while position + 8 <= end {
            let word = UInt64(littleEndian: UnsafeRawPointer(bytes + position).loadUnaligned(as: UInt64.self))
            let quotes = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
            let backslashes = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
            let flags = ((word &- ones &* 0x20) & ~word | (quotes &- ones) & ~quotes | (backslashes &- ones) & ~backslashes) & high
            if flags != 0 { return position + flags.trailingZeroBitCount / 8 }
            position += 8
        }
        while position < end {
            let byte = bytes[position]
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return position }
            position += 1
        }
        return end
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }

    private mutating func appendEscape(_ byte: UInt8) {
        appendByte(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""): appendByte(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): appendByte(UInt8(ascii: "\\"))
        case 0x0A: appendByte(UInt8(ascii: "n"))
        case 0x0D: appendByte(UInt8(ascii: "r"))
        case 0x09: appendByte(UInt8(ascii: "t"))
        case 0x08: appendByte(UInt8(ascii: "b"))
        case 0x0C: appendByte(UInt8(ascii: "f"))
        default:
            append("u00")
            appendByte(Self.hexDigit(byte >> 4))
            appendByte(Self.hexDigit(byte & 0x0F))
        }
    }
}

extension JSONValue {
    /// Compact JSON with object keys in ascending byte order.
    public var canonicalBytes: [UInt8] {
        var writer = JSONWriter()
        writer.write(self)
        return writer.bytes
    }

    /// Compact JSON text with object keys in ascending byte order.
    public var canonicalText: String {
        String(decoding: canonicalBytes, as: UTF8.self)
    }
}

extension JSONWriter {
    /// Writes a JSON value with its object keys in ascending byte order.
    package mutating func write(_ value: JSONValue) {
        switch value {
        case .null: null()
        case .bool(let flag): bool(flag)
        case .number(let number): self.number(number)
        case .string(let text): string(text)
        case .array(let elements):
            beginArray()
            for element in elements { write(element) }
            endArray()
        case .object(let object):
            beginObject()
            for key in object.keys.sorted(by: { $0.utf8Precedes($1) }) {
                if let member = object[key] {
                    self.key(key)
                    write(member)
                }
            }
            endObject()
        }
    }
}
