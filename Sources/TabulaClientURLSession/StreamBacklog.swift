import Foundation

/// The parts of a stream's body that URLSession delivered and its reader has not taken yet.
/// URLSession reads as fast as the service sends (FoundationNetworking has no way to make it
/// wait), so a reader slower than the service would let parts pile up without bound: past
/// ``limit`` the transport gives the stream up, and its reader connects again.
final class StreamBacklog: @unchecked Sendable {
    /// The most bytes delivered and not yet read: as much as the largest event a reader takes
    /// (`TabulaClient` reads events of up to 64 MiB).
    static let limit = 64 << 20

    private let lock = NSLock()
    private var bytes = 0

    /// Counts a part delivered; whether the backlog is still within ``limit``.
    func add(_ count: Int) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        bytes += count
        return bytes <= Self.limit
    }

    private func taken(_ count: Int) {
        lock.lock()
        defer { lock.unlock() }
        bytes -= count
    }

    /// `chunks` as its reader sees it: each part leaves the backlog as it is read.
    func reading(_ chunks: AsyncThrowingStream<[UInt8], any Error>) -> AsyncThrowingStream<[UInt8], any Error> {
        let reader = Reader(chunks.makeAsyncIterator())
        return AsyncThrowingStream { [self] in
            guard let chunk = try await reader.next() else { return nil }
            taken(chunk.count)
            return chunk
        }
    }

    /// The one reader's place in the delivered parts. A stream's body has one reader (the
    /// handle reading its stream); two would race on the iterator.
    private final class Reader: @unchecked Sendable {
        private var iterator: AsyncThrowingStream<[UInt8], any Error>.AsyncIterator

        init(_ iterator: AsyncThrowingStream<[UInt8], any Error>.AsyncIterator) {
            self.iterator = iterator
        }

        func next() async throws -> [UInt8]? {
            try await iterator.next()
        }
    }
}
