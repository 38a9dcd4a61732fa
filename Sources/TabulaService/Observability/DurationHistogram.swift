/// Durations counted into the fixed buckets the service's latency histograms share:
/// requests (`tabula_http_request_duration_seconds`) and calls of the app's backend
/// (`tabula_action_call_duration_seconds`), whose timeout runs to seconds, so the buckets do
/// too.
struct DurationHistogram {
    /// Upper bounds of the buckets, in nanoseconds.
    static let bounds: [Int64] = [
        50_000, 100_000, 250_000, 500_000, 1_000_000, 2_000_000, 5_000_000, 10_000_000, 25_000_000,
        50_000_000, 100_000_000, 250_000_000, 500_000_000, 1_000_000_000, 2_000_000_000, 5_000_000_000, 10_000_000_000,
    ]
    /// The bounds' `le` labels, in seconds as Prometheus writes them: "0.00005", "1.0".
    static let labels = bounds.map { bound in
        var text = Substring(seconds(UInt64(bound)))
        while text.hasSuffix("0") && !text.hasSuffix(".0") { text = text.dropLast() }
        return String(text)
    }

    /// One count per bucket (not cumulative) plus one for longer durations.
    private(set) var buckets = [Int](repeating: 0, count: DurationHistogram.bounds.count + 1)
    /// Unsigned, and wrapping past 584 years of durations: streams open for hours are
    /// requests too, and a signed sum wrapped negative within months at the streams' limit
    /// (and then made a fraction too long to pad). A sum that falls is read by Prometheus as
    /// a counter's reset.
    private(set) var totalNanoseconds: UInt64 = 0
    private(set) var count = 0

    mutating func record(nanoseconds: Int64) {
        var bucket = 0
        while bucket < Self.bounds.count && nanoseconds > Self.bounds[bucket] { bucket += 1 }
        buckets[bucket] += 1
        totalNanoseconds &+= UInt64(clamping: nanoseconds)
        count += 1
    }

    mutating func add(_ other: DurationHistogram) {
        for index in buckets.indices { buckets[index] += other.buckets[index] }
        totalNanoseconds &+= other.totalNanoseconds
        count += other.count
    }

    /// Appends the histogram's lines as `name`, with `labels` on each.
    func append(_ name: String, labels: String, to text: inout String) {
        PrometheusText.appendHistogram(
            name, labels: labels, bounds: Self.labels, buckets: buckets, sum: Self.seconds(totalNanoseconds), count: count,
            to: &text)
    }

    /// "0.000123456" for 123,456 nanoseconds.
    static func seconds(_ nanoseconds: UInt64) -> String {
        let fraction = String(nanoseconds % 1_000_000_000)
        return "\(nanoseconds / 1_000_000_000)." + String(repeating: "0", count: 9 - fraction.count) + fraction
    }
}
