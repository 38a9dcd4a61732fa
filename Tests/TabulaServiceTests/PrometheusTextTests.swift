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
