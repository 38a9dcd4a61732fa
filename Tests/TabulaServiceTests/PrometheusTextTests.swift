import Testing

@testable import TabulaService

/// The exposition's own pieces, at the edges a long-running service reaches.
@Suite struct PrometheusTextTests {
    /// Streams are requests too, open for hours: the sum of their durations passed what an
    /// Int64 of nanoseconds holds, wrapped negative, and the scrape then trapped padding a
    /// fraction of ten characters to nine.
    @Test func aHistogramsSumPastInt64IsStillANumber() {
        var histogram = DurationHistogram()
        for _ in 0..<3 { histogram.record(nanoseconds: Int64.max / 2) }
        histogram.record(nanoseconds: -5)
        var text = ""
        histogram.append("tabula_test_seconds", labels: "", to: &text)
        let sum = text.split(separator: "\n").first { $0.hasPrefix("tabula_test_seconds_sum ") }
        #expect(sum == "tabula_test_seconds_sum 13835058055.282163709", "\(text)")
        #expect(text.contains("tabula_test_seconds_count 4\n"))
        #expect(DurationHistogram.seconds(UInt64.max) == "18446744073.709551615")
        #expect(DurationHistogram.seconds(5) == "0.000000005")
    }

    /// A label value is escaped by scalar: a CR LF is one Swift Character, equal to neither
    /// "\r" nor "\n", and went out raw, ending the line.
    @Test func aLabelValuesLineBreaksAreEscaped() {
        #expect(PrometheusText.escaped("a\r\nb\"c\\d\ne") == "a\r\\nb\\\"c\\\\d\\ne")
    }
}

/// The test for control bytes the access log asks of every request, eight bytes at a time,
/// against a byte-by-byte one.
@Suite struct AccessLogControlBytesTests {
    @Test func wordsFindWhatBytesFind() {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [UInt8] = [0x00, 0x07, 0x1B, 0x1F, 0x20, 0x21, 0x41, 0x7E, 0x7F, 0x80, 0xA0, 0xFF]
        for length in 0..<40 {
            for _ in 0..<200 {
                // Mostly printable ASCII with now and then one byte of the alphabet, and
                // valid UTF-8 around bytes from 0x80 on.
                var text = ""
                for _ in 0..<length {
                    let byte = alphabet.randomElement(using: &generator) ?? 0x41
                    if Int.random(in: 0..<6, using: &generator) > 0 {
                        text.unicodeScalars.append(Unicode.Scalar(UInt8.random(in: 0x20...0x7E, using: &generator)))
                    } else {
                        text.unicodeScalars.append(Unicode.Scalar(byte))
                    }
                }
                let expected = text.utf8.contains { $0 < 0x20 || $0 == 0x7F }
                #expect(text.hasASCIIControlCharacter == expected, "\(Array(text.utf8))")
            }
        }
    }
}
