import Logging
import Synchronization
import TabulaCore
import TabulaCurl
import TabulaPlatform

/// Asks the app's backend for the events that reach a `call` action: signs each call, keeps
/// at most `--actions-concurrency` in flight, and turns what comes back into a checked
/// ``CallAnswer`` or the problem the client gets (504 `action-timeout`, 502
/// `action-failed`, 503 `actions-busy` / `actions-not-configured`).
///
/// Calls go out through one ``HTTPClient`` (libcurl's multi interface on a thread of its
/// own), which keeps connections to the backend alive and reuses them; answers continue on
/// the service's worker pool, never on that thread.
///
/// On one instance an event is called at most once: a retry of an event (same session,
/// same `eventId`) that arrives while its call is in flight waits for it, then runs again
/// and finds the stored answer (``waitOrBegin(_:then:)``).
final class ActionCaller: Sendable {
    private let settings: ActionSettings?
    private let client: Result<HTTPClient, HTTPClientError>?
    private let pool: WorkerPool
    private let metrics: ServiceMetrics
    private let logger: Logger
    private let inFlight = Atomic<Int>(0)
    /// The events whose call is in flight, each with the retries waiting for it.
    private let calling = Locked<[String: [@Sendable () -> Void]]>([:])

    init(settings: ActionSettings?, pool: WorkerPool, metrics: ServiceMetrics, logger: Logger) {
        self.settings = settings
        self.pool = pool
        self.metrics = metrics
        self.logger = logger
        client = settings.map { settings in
            do throws(HTTPClientError) {
                return .success(try HTTPClient(maxConnections: settings.concurrency))
            } catch {
                return .failure(error)
            }
        }
    }

    /// Why calls cannot be made though a backend is configured (libcurl is missing), for
    /// the start-up check; `nil` when they can, or when no backend is configured.
    var unavailable: String? {
        if case .failure(let error)? = client { return "\(error)" }
        if client != nil, case .failure(let reason) = LibCrypto.shared { return "calls cannot be signed: \(reason)" }
        return nil
    }

    /// Runs `go` when no call of the same event is in flight, marking one as begun (end it
    /// with ``end(_:)``); otherwise runs `retry` on the pool once that call has ended.
    func waitOrBegin(_ event: String, then retry: @escaping @Sendable () -> Void) -> Bool {
        calling.withLock { calling in
            if calling[event] != nil {
                calling[event, default: []].append(retry)
                return false
            }
            calling[event] = []
            return true
        }
    }

    /// The call of `event` has ended (its answer stored, or its failure answered): the
    /// retries that waited for it run again.
    func end(_ event: String) {
        let waiting = calling.withLock { $0.removeValue(forKey: event) } ?? []
        for retry in waiting { pool.run(retry) }
    }

    /// Sends `call` and reads its answer with `reader`; `completion` runs on the pool.
    func call(_ call: BackendCall, reader: CallAnswerReader, completion: @escaping @Sendable (Result<CallAnswer, Problem>) -> Void) {
        guard let settings, let client else { return completion(.failure(.actionsNotConfigured(call.action))) }
        let action = call.action
        let http: HTTPClient
        switch client {
        case .success(let made): http = made
        case .failure(let error): return completion(.failure(.actionFailed(action, "Tabula cannot make calls: \(error)")))
        }
        guard inFlight.add(1, ordering: .relaxed).newValue <= settings.concurrency else {
            inFlight.subtract(1, ordering: .relaxed)
            metrics.recordActionCall(action: action, outcome: "busy")
            return completion(.failure(.actionsBusy(limit: settings.concurrency)))
        }
        let body = call.body
        let time = Int(SystemClock.coarseWallNanoseconds() / 1_000_000_000)
        guard let signature = ActionSignature.header(secret: settings.secret, time: time, body: body) else {
            inFlight.subtract(1, ordering: .relaxed)
            return completion(.failure(.actionFailed(action, "Tabula cannot sign calls: libcrypto (libssl3) cannot be loaded")))
        }
        var request = HTTPClientRequest(
            url: settings.url(of: action),
            headers: [
                ("Content-Type", "application/json"), ("Idempotency-Key", call.eventID), (ActionSignature.headerName, signature),
            ], body: body, timeout: settings.timeout)
        request.certificateAuthorities = settings.certificateAuthorities
        let sent = SystemClock.monotonicNanoseconds()
        http.post(request) { [self] result in
            let waited = SystemClock.monotonicNanoseconds() - sent
            inFlight.subtract(1, ordering: .relaxed)
            pool.run { [self] in
                let outcome = answer(result, action: action, reader: reader, timeout: settings.timeout)
                metrics.recordActionCall(action: action, outcome: outcome.label, nanoseconds: waited)
                completion(outcome.result)
            }
        }
    }

    /// What came of a call: the event's result, and the outcome the metrics count it as.
    private struct CallOutcome {
        let result: Result<CallAnswer, Problem>
        let label: String
    }

    private func answer(
        _ result: Result<HTTPClientResponse, HTTPClientError>, action: String, reader: CallAnswerReader, timeout: Duration
    ) -> CallOutcome {
        switch result {
        case .failure(.timedOut):
            logger.warning("the backend did not answer the action in time", metadata: ["action": "\(action)", "timeout": "\(timeout)"])
            return CallOutcome(result: .failure(.actionTimeout(action, after: timeout)), label: "timeout")
        case .failure(let error):
            logger.warning("a call of the backend failed", metadata: ["action": "\(action)", "cause": "\(error)"])
            // The log has curl's reason, which may name the backend's address: not for clients.
            let cause =
                switch error {
                case .answerTooLarge(let limit): "its answer is larger than \(limit) bytes"
                case .timedOut, .transport, .unavailable: "the backend could not be reached (this instance's log says why)"
                }
            return CallOutcome(result: .failure(.actionFailed(action, cause)), label: "failed")
        case .success(let response):
            do throws(CallAnswerReader.Failure) {
                let answer = try reader.read(status: response.status, body: response.body)
                return CallOutcome(result: .success(answer), label: answer.errors.isEmpty ? "answered" : "errors")
            } catch {
                logger.warning("the backend's answer is not valid", metadata: ["action": "\(action)", "cause": "\(error.reason)"])
                return CallOutcome(result: .failure(.actionFailed(action, error.reason)), label: "failed")
            }
        }
    }

    /// Connections opened to the backend so far: far fewer than calls, as they are reused.
    var connectionsOpened: Int {
        if case .success(let http)? = client { return http.connectionsOpened }
        return 0
    }

    /// Stops the client: calls in flight end as failures.
    func close() {
        if case .success(let http)? = client { http.shutdown() }
    }
}
