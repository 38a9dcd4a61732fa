internal import CMicroHTTPD
import Synchronization

/// What a stream sends next.
public enum StreamChunk: Sendable {
    /// These bytes.
    case bytes([UInt8])
    /// Nothing yet: the connection waits, holding no thread, until ``ServerStream/wake()``.
    case wait
    /// The response ends here.
    case end
}

/// The producer of a stream's bytes. The server asks it on the connection's thread whenever
/// it can send, one call at a time per stream.
public protocol StreamSource: AnyObject, Sendable {
    /// The next bytes to send.
    func nextChunk() -> StreamChunk
    /// The stream's request is over: it ended, the client left, or the server stopped.
    /// Called once, on the connection's thread.
    func streamClosed()
}

/// A response body without an end known in advance (Server-Sent Events): the server pulls
/// chunks from its ``StreamSource`` and suspends the connection when there is nothing to
/// send; a producer calls ``wake()`` from any thread when there is (see
/// ``StreamStateMachine``). Sent as a ``Response`` made with ``Response/init(status:headerFields:stream:)``.
public final class ServerStream: @unchecked Sendable {
    let source: any StreamSource
    /// A ``StreamState``.
    let state = Atomic<Int>(StreamState.running.rawValue)
    /// Set by a shutdown: the response ends at the next chunk, and never waits again.
    let ending = Atomic<Bool>(false)
    /// Set on the connection's thread before the response is queued, read by wakes after
    /// a move to `suspended` (acquire/release through ``state``).
    var connection: OpaquePointer?
    var core: ServerCore?
    // The chunk being sent, and how much of it is; the connection's thread only.
    private var chunk: [UInt8] = []
    private var sent = 0

    public init(source: any StreamSource) {
        self.source = source
    }

    /// There is something to send: the connection asks the source again soon, resumed if
    /// it was suspended. Cheap, and harmless after the stream closed.
    public func wake() {
        switch state.move(StreamStateMachine.wake) {
        case .none: return
        case .resume:
            // A shutdown that set `stopped` meanwhile skips the resume: the stream stays
            // `resuming`, counted as suspended, and the daemon is not stopped under it.
            if let connection, let core, core.resume(connection) { state.move(StreamStateMachine.resumed) }
        }
    }

    /// Ends the response after the chunk being sent (a shutdown).
    func end() {
        ending.store(true, ordering: .releasing)
        wake()
    }

    /// Whether the connection is, or is about to be, suspended.
    var isSuspended: Bool {
        switch StreamState(rawValue: state.load(ordering: .acquiring)) ?? .fallback {
        case .suspending, .wokenWhileSuspending, .suspended, .resuming, .resumingWoken: true
        case .running, .woken, .closed: false
        }
    }

    /// libmicrohttpd's content reader: copies up to `capacity` bytes into `buffer`, or
    /// suspends the connection and returns 0, or ends the response.
    func read(into buffer: UnsafeMutableRawPointer, capacity: Int) -> Int {
        while true {
            if sent < chunk.count {
                let count = min(capacity, chunk.count - sent)
                chunk.withUnsafeBytes { bytes in
                    UnsafeMutableRawBufferPointer(start: buffer, count: count).copyMemory(
                        from: UnsafeRawBufferPointer(rebasing: bytes[sent..<(sent + count)]))
                }
                sent += count
                return count
            }
            chunk = []
            sent = 0
            if ending.load(ordering: .acquiring) { return Self.endOfStream }
            switch source.nextChunk() {
            case .bytes(let bytes): chunk = bytes
            case .end: return Self.endOfStream
            case .wait:
                switch state.move(StreamStateMachine.nothingToSend) {
                case .lookAgain: continue
                case .end: return Self.endOfStream
                case .suspend:
                    guard let connection else { return Self.endOfStream }
                    MHD_suspend_connection(connection)
                    switch state.move(StreamStateMachine.suspended) {
                    case .wait: return 0
                    case .resume:
                        // On the connection's own thread, inside libmicrohttpd's callback:
                        // a daemon being stopped waits for this thread, and resumes
                        // connections that were resumed before it closes them.
                        MHD_resume_connection(connection)
                        return 0
                    case .impossible: return Self.endOfStream
                    }
                }
            }
        }
    }

    /// The request completed: never resumed again; the source hears of it once.
    func closed() {
        state.move(StreamStateMachine.close)
        source.streamClosed()
    }

    static let endOfStream = -1
}
