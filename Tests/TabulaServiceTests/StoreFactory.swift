import Foundation
import Logging
import TabulaCore
import TabulaHTTP
import TabulaPlatform
import TabulaTestSupport

@testable import TabulaService

/// The three stores, for tests that must hold for each.
enum StoreKind: String, CaseIterable, Sendable {
    case memory, sqlite, postgres
}

/// Opens stores of one kind on one place (a directory, a database) so that a test can
/// close a store and open it again, as a restart would.
final class StoreFactory {
    let kind: StoreKind
    let directory: URL
    let databaseURL: String?
    var settings = StoreSettings()
    var clock: (@Sendable () -> Milliseconds) = unixMilliseconds
    /// Seconds between the store's own retention passes: none by default, so that a test
    /// that moves the clock runs each pass itself.
    var retentionIntervalSeconds: Double = 0

    init(_ kind: StoreKind) throws {
        self.kind = kind
        directory = try makeTemporaryDirectory()
        databaseURL = kind == .postgres ? try PostgresCluster.shared.get().makeDatabase() : nil
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    func open(_ catalogue: Catalogue) throws -> any SessionStore {
        var logger = Logger(label: "store-test")
        logger.logLevel = .error
        switch kind {
        case .memory:
            return MemorySessionStore(settings: settings, retentionIntervalSeconds: retentionIntervalSeconds, now: clock)
        case .sqlite:
            return try SQLiteSessionStore(
                directory: directory.path, settings: settings, logger: logger, retentionIntervalSeconds: retentionIntervalSeconds, now: clock)
        case .postgres:
            return try PostgresSessionStore(
                url: databaseURL ?? "", settings: settings, logger: logger, retentionIntervalSeconds: retentionIntervalSeconds,
                now: clock)
        }
    }
}

/// A store's completion-based calls made synchronous, for tests.
func wait<Value: Sendable>(_ call: (@escaping @Sendable (Result<Value, StoreError>) -> Void) -> Void) throws -> Value {
    let box = Locked<Result<Value, StoreError>?>(nil)
    call { result in box.withLock { $0 = result } }
    let deadline = Date().addingTimeInterval(20)
    while Date() < deadline {
        if let result = box.withLock({ $0 }) { return try result.get() }
        usleep(1000)
    }
    throw StoreError("the store did not answer within 20 seconds")
}

/// The digest the durable stores keep of a token (``TokenDigest``), for tests that look at
/// their files; an empty string, which matches nothing, when libcrypto cannot be loaded.
func testDigest(_ token: String) -> String {
    (try? TokenDigest.of(token)) ?? ""
}
