import ArgumentParser
import TabulaPlatform
import TabulaService

/// `--actions-url`, `--actions-secret`, `--actions-timeout`, `--actions-concurrency` and
/// `--actions-ca-file`: the app's backend, which `call` actions ask within an event.
struct ActionOptions: ParsableArguments {
    @Option(
        name: .customLong("actions-url"), parsing: .unconditional,
        help: "The app's backend, an http or https URL: a call action NAME posts to URL/NAME (env TABULA_ACTIONS_URL, default: none, call actions get 503)")
    var actionsURL: String?

    @Option(
        name: .customLong("actions-secret"), parsing: .unconditional,
        help: "The secret Tabula signs its calls with (Tabula-Signature, HMAC-SHA256); required with --actions-url (env TABULA_ACTIONS_SECRET)")
    var actionsSecret: String?

    @Option(
        name: .customLong("actions-timeout"), parsing: .unconditional,
        help:
            "How long a call may take before its event gets 504: seconds, or 500ms, 5s, 1m (env TABULA_ACTIONS_TIMEOUT, default \(Self.defaultTimeoutText))"
    )
    var actionsTimeout: String?

    @Option(
        name: .customLong("actions-concurrency"), parsing: .unconditional,
        help: "Calls in flight at once; more get 503 (env TABULA_ACTIONS_CONCURRENCY, default \(Self.defaultConcurrency))")
    var actionsConcurrency: Int?

    @Option(
        name: .customLong("actions-ca-file"), parsing: .unconditional,
        help:
            "A PEM file of the certificate authorities an https backend's certificate must come from, instead of the system's: for a backend whose certificate a private CA signed (env TABULA_ACTIONS_CA_FILE)"
    )
    var actionsCAFile: String?

    static let defaultTimeoutText = "5s"
    static let defaultConcurrency = 100
    static let concurrencyRange = 1...10_000
    /// From a millisecond to ten minutes: a call holds its client's request open.
    static let timeoutRange = 1...600_000

    func resolved() throws -> ActionSettings? {
        let url = actionsURL ?? EnvironmentSetting.value("TABULA_ACTIONS_URL")
        let secret = actionsSecret ?? EnvironmentSetting.value("TABULA_ACTIONS_SECRET")
        // Checked with or without a backend: a value out of range is a mistake either way.
        let timeoutText = actionsTimeout ?? EnvironmentSetting.value("TABULA_ACTIONS_TIMEOUT") ?? Self.defaultTimeoutText
        guard let milliseconds = Self.milliseconds(timeoutText), Self.timeoutRange.contains(milliseconds) else {
            throw ValidationError(
                "--actions-timeout (or TABULA_ACTIONS_TIMEOUT) \"\(timeoutText)\" is not a duration from 1ms to 10m; use seconds, or 500ms, 5s, 1m")
        }
        let concurrency = try EnvironmentSetting.resolve(actionsConcurrency, "TABULA_ACTIONS_CONCURRENCY", default: Self.defaultConcurrency)
        guard Self.concurrencyRange.contains(concurrency) else {
            throw ValidationError(
                "--actions-concurrency must be between \(Self.concurrencyRange.lowerBound) and \(Self.concurrencyRange.upperBound), not \(concurrency)")
        }
        let authorities = actionsCAFile ?? EnvironmentSetting.value("TABULA_ACTIONS_CA_FILE")
        guard let url else {
            if secret != nil { throw ValidationError("--actions-secret needs --actions-url (or TABULA_ACTIONS_URL), the backend it signs calls to") }
            if authorities != nil {
                throw ValidationError("--actions-ca-file needs an https --actions-url (or TABULA_ACTIONS_URL), the backend it vouches for")
            }
            return nil
        }
        guard BaseURL.isUsable(url) else {
            throw ValidationError("--actions-url \"\(url)\" is not an http or https URL without a query, like https://backend.example/tabula")
        }
        guard let secret, !secret.isEmpty else {
            throw ValidationError("--actions-url needs --actions-secret (or TABULA_ACTIONS_SECRET): every call is signed with it")
        }
        if let authorities {
            try CertificateAuthorityFile.check(authorities, option: "--actions-ca-file", url: url, urlOption: "--actions-url", peer: "backend")
        }
        return ActionSettings(
            url: url, secret: secret, timeout: .milliseconds(milliseconds), concurrency: concurrency, certificateAuthorities: authorities)
    }

    /// `250ms`, or what ``DurationText`` reads (`5`, `5s`, `1m`), in milliseconds.
    static func milliseconds(_ text: String) -> Int? {
        if text.hasSuffix("ms") {
            guard let value = Int(text.dropLast(2)), value >= 0 else { return nil }
            return value
        }
        guard let seconds = DurationText.seconds(text), seconds <= timeoutRange.upperBound / 1000 else { return nil }
        return seconds * 1000
    }
}
