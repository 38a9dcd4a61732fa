/// Durations counted into the fixed buckets the service's latency histograms share, from
/// 50 µs to 10 s: requests (`tabula_http_request_duration_seconds`) and calls of the app's
/// backend (`tabula_action_call_duration_seconds`, whose timeout is seconds long).
struct DurationHistogram {
    /// Upper bounds of the buckets, in nanoseconds, and their `le` labels.
    static let bounds: [Int64] = [
        50_000, 100_000, 250_000, 500_000, 1_000_000, 2_000_000, 5_000_000, 10_000_000, 25_000_000,
        50_000_000, 100_000_000, 250_000_000, 500_000_000, 1_000_000_000, 2_000_000_000, 5_000_000_000, 10_000_000_000,
    ]
    static let labels = [
        "0.00005", "0.0001", "0.00025", "0.0005", "0.001", "0.002", "0.005", "0.01", "0.025",
        "0.05", "0.1", "0.25", "0.5", "1.0", "2.0", "5.0", "10.0",
    ]

    /// One count per bucket (not cumulative) plus one for longer durations.
    private(set) var buckets = [Int](repeating: 0, count: DurationHistogram.bounds.count + 1)
    private(set) var totalNanoseconds: Int64 = 0
    private(set) var count = 0

    mutating func record(nanoseconds: Int64) {
        var bucket = 0
        while bucket < Self.bounds.count && nanoseconds > Self.bounds[bucket] { bucket += 1 }
        buckets[bucket] += 1
        totalNanoseconds &+= nanoseconds
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
    static func seconds(_ nanoseconds: Int64) -> String {
        let fraction = String(nanoseconds % 1_000_000_000)
        return "\(nanoseconds / 1_000_000_000)." + String(repeating: "0", count: 9 - fraction.count) + fraction
    }
}
