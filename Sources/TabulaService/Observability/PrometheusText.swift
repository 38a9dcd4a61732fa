/// Pieces of the Prometheus text exposition format shared by the service's own metrics.
enum PrometheusText {
    /// A label value as Prometheus text needs it.
    static func escaped(_ value: String) -> String {
        var result = ""
        // By scalar, not by character: "\r\n" is one Character, equal to neither.
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case "\n": result += "\\n"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// Appends a histogram's lines: cumulative buckets with `le` labels `bounds` (`buckets`
    /// holds one count per bound, not cumulative, then the count above the last), `+Inf`,
    /// the sum and the count. `labels` (`route="/healthz"`) go on every line.
    static func appendHistogram(
        _ name: String, labels: String, bounds: [String], buckets: [Int], sum: String, count: Int, to text: inout String
    ) {
        let bucketLabels = labels.isEmpty ? "" : labels + ","
        let lineLabels = labels.isEmpty ? "" : "{\(labels)}"
        var cumulative = 0
        for (index, bound) in bounds.enumerated() {
            cumulative += buckets[index]
            text += "\(name)_bucket{\(bucketLabels)le=\"\(bound)\"} \(cumulative)\n"
        }
        text += "\(name)_bucket{\(bucketLabels)le=\"+Inf\"} \(count)\n"
        text += "\(name)_sum\(lineLabels) \(sum)\n"
        text += "\(name)_count\(lineLabels) \(count)\n"
    }
}
