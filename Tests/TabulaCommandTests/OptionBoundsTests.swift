import Testing

/// Values a command line can give that would otherwise trap or overflow are refused with a
/// usage error (exit 64) that names the option.
@Suite struct OptionBoundsTests {
    @Test func durationsBeyondAHundredYearsAreRefused() throws {
        for option in ["--session-ttl", "--idempotency-ttl"] {
            // 40,000 days is past the 100-year bound (larger values overflowed the stores'
            // millisecond arithmetic). The missing screens folder makes a run that accepted
            // it end (exit 1) instead of serving.
            let result = try runTabula(["serve", "--store", "memory", "--port", "0", "--screens", "/nonexistent", option, "40000d"])
            #expect(result.status == 64, "\(option)")
            #expect(result.standardError.contains("is not a duration"), "\(result.standardError)")
        }
    }

    @Test func aHealthcheckTimeoutMustBeFinite() throws {
        for timeout in ["inf", "nan", "1e20", "0"] {
            let result = try runTabula(["healthcheck", "--timeout", timeout, "--url", "http://127.0.0.1:1/healthz"])
            #expect(result.status == 64, "\(timeout)")
            #expect(result.standardError.contains("--timeout must be"), "\(result.standardError)")
        }
    }
}
