import TabulaPlatform

/// Outbound requests over libcurl (`POST`s, and `GET`s whose answers may stream), on one
/// thread of their own, with connections kept alive and reused between requests.
///
/// One thread moves every transfer: it waits on all their sockets at once
/// (`curl_multi_poll`), so a slow server costs a socket, not a thread. At most
/// `maxConnections` connections are open; requests beyond them wait inside curl for one to
/// be free, their timeout running.
///
/// Completions run on that thread, one after another: they must be quick, and hand any
/// heavy or blocking work to another thread (a worker pool, a queue), or they hold up every
/// other transfer's completion. A completion may call ``post(_:completion:)`` and
/// ``shutdown()``.
///
/// libcurl (Debian's libcurl4) is loaded with `dlopen` by the first client made.
public final class HTTPClient: Sendable {
    private let loop: TransferLoop
    private let thread: WorkerThread

    /// Loads libcurl, makes the connection cache and starts the client's thread.
    /// `maxConnections` (at least 1) bounds the connections open at once.
    public init(maxConnections: Int) throws(HTTPClientError) {
        let curl = try LibCurl.get()
        let loop = try TransferLoop(curl: curl, maxConnections: max(1, maxConnections))
        self.loop = loop
        thread = WorkerThread.start { loop.run() }
    }

    /// Stops the thread if ``shutdown()`` has not (in a completion, without waiting for it).
    deinit {
        if case .join = loop.stop(lastReference: true) { thread.join() }
    }

    /// Sends `request` (a `POST` unless its method says otherwise); `completion` runs once, on the client's thread, with the
    /// answer whatever its status, or why there is none. After ``shutdown()`` it runs at once
    /// on the calling thread with ``HTTPClientError/transport(_:)``.
    public func post(_ request: HTTPClientRequest, completion: @escaping @Sendable (Result<HTTPClientResponse, HTTPClientError>) -> Void) {
        if !loop.submit(PendingTransfer(request: request, completion: completion)) {
            completion(.failure(.transport("the client stopped")))
        }
    }

    /// Stops the client: requests queued or in flight complete with
    /// ``HTTPClientError/transport(_:)``, then the thread ends and curl's handles are freed.
    /// Waits for that, except when called from a completion (a later call from another
    /// thread waits); once one call has waited, later ones do nothing.
    public func shutdown() {
        if case .join = loop.stop(lastReference: false) { thread.join() }
    }

    /// New connections opened so far, summed over finished transfers: with keep-alive,
    /// far fewer than the requests sent.
    public var connectionsOpened: Int { loop.connectionsOpened }
}
