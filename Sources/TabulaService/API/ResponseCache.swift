import TabulaHTTP
import TabulaPlatform

/// Answers a `GET` the service answered before, from the calling thread's memory, before the
/// request is parsed or routed. A repeated request (the same target and the same headers in
/// the same order, `If-None-Match` aside) gets what the routed `GET` answered, for as long as
/// that answer is current: the session's watch still vouches for the screen's revision.
///
/// The cache knows no rule of its own. Only a route that says its answer may be reused
/// fills it (``ReusableAnswer``, a screen's `GET`), only through the ``RouteResponder`` and
/// only with a response sent unchanged (nothing added, such as CORS fields). Header,
/// access, routing and token rules are the routed path's: a request that passed them once
/// passes them again with the same bytes, and anything else misses and is routed. The
/// `If-None-Match` header picks the screen's 200 or 304, as it does on the routed path.
///
/// Per thread (``ShardedStorage/init(perThread:)``): a `GET` answered here writes no memory
/// that other threads use. The store's and the screen cache's locks, and the reference
/// counts of a session's state, screen and response, were each written by every thread
/// that served the session, a cache line moved between cores per write (the largest
/// user-space cost of a `GET` in `perf`); `Scripts/bench` measures the `GET` against the
/// C ceiling. Bounded per thread, by entries and by the bytes of their screens' JSON (an
/// entry holds its screen): when a thread's share is full, an eighth of it is dropped, or
/// more (``BoundedDictionary``); a stale entry is dropped when its thread next finds it.
final class ResponseCache: Sendable {
    private let shards: ShardedStorage<BoundedDictionary<Int, Entry>>
    /// Drawn per cache, so that which requests share a slot cannot be worked out from outside.
    private let seed = UInt64.random(in: 1...UInt64.max)

    /// Counts the answers dropped to keep the bounds.
    private let limitCounts: LimitCounts

    /// A cache of at most `bounds` on each thread (at least 8 entries).
    init(_ bounds: CacheBounds, limitCounts: LimitCounts) {
        shards = ShardedStorage(perThread: { BoundedDictionary(maxCount: max(8, bounds.entries), maxBytes: bounds.bytes) })
        self.limitCounts = limitCounts
    }

    /// The answer for an unparsed `GET` if a routed one with the same bytes was answered on
    /// this thread and is still current; counts the read as use of its session.
    func answer(_ request: UnparsedGet, store: any SessionStore) -> QuickAnswer? {
        var tags: UnsafeRawBufferPointer?
        var tagHeaders = 0
        var fingerprint = Fingerprint(seed: seed)
        fingerprint.add(request.path)
        request.forEachHeader { name, value in
            if ASCII.equalIgnoringCase(name, Self.validator) {
                tags = value
                tagHeaders += 1
            } else {
                fingerprint.add(name)
                fingerprint.add(value)
            }
        }
        // Two If-None-Match headers: the routed path decides what they mean.
        guard tagHeaders <= 1 else { return nil }
        let key = fingerprint.value
        guard
            let entry = shards.withThreadShard({ entries -> Entry? in
                guard let entry = entries[key] else { return nil }
                guard entry.isCurrent else {
                    entries.removeValue(forKey: key)
                    return nil
                }
                return entry
            })
        else { return nil }
        guard entry.matches(request) else { return nil }
        entry.touch(in: store)
        return entry.answer(ifNoneMatch: tags.map { String(decoding: $0, as: UTF8.self) })
    }

    /// Keeps a routed `GET`'s answer for the calling thread's repeats of `request`.
    func remember(_ reusable: ReusableAnswer, for request: Request, route: String, logContext: String?) {
        var fingerprint = Fingerprint(seed: seed)
        var key = KeyBytes()
        var path = request.rawPath
        path.withUTF8 { path in
            fingerprint.add(UnsafeRawBufferPointer(path))
            key.append(UnsafeRawBufferPointer(path))
        }
        request.headers.forEachHeader { name, value in
            guard !ASCII.equalIgnoringCase(name, Self.validator) else { return }
            fingerprint.add(name)
            fingerprint.add(value)
            key.append(name)
            key.append(value)
        }
        let entry = Entry(key: key, reusable: reusable, route: route, logContext: logContext)
        let slot = fingerprint.value
        // The screen is shared by the entries of its session; the key is each entry's own.
        let bytes = reusable.screen.bytes.count + key.count
        let dropped = shards.withThreadShard { entries in entries.insert(entry, bytes: bytes, forKey: slot) }
        limitCounts.add(.screenCacheBytes, dropped)
    }

    /// The one header left out of the key: it picks between the answer's 200 and 304.
    private static let validator: StaticString = "if-none-match"

    /// A request's target and headers hashed as they come (``WordHash``, seeded): cheap on
    /// every `GET`, and a collision only costs a miss, because a found entry compares the
    /// bytes themselves.
    struct Fingerprint {
        private var hash: WordHash

        init(seed: UInt64) {
            hash = WordHash(seed: seed)
        }

        /// Adds a piece, its length first: pieces cut elsewhere hash apart.
        mutating func add(_ bytes: UnsafeRawBufferPointer) {
            hash.add(UInt64(bytes.count))
            hash.add(bytes)
        }

        var value: Int { Int(truncatingIfNeeded: hash.value ^ (hash.value >> 32)) }
    }

    /// A request's pieces (target, then each header's name and value) as one buffer, each
    /// piece its length (4 bytes) and its bytes.
    struct KeyBytes: Sendable {
        private var bytes: [UInt8] = []
        /// The bytes the key holds: a request's headers are the sender's to make long.
        var count: Int { bytes.count }

        mutating func append(_ piece: UnsafeRawBufferPointer) {
            let length = UInt32(clamping: piece.count)
            for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: length >> UInt32(shift))) }
            bytes.append(contentsOf: piece.prefix(Int(length)))
        }

        /// Whether the pieces `pieces` hands to its argument, in order, are these. Each piece
        /// is compared whole, wherever the first difference is: a header compared may carry
        /// a key, and timing must not tell how much of a guess was right.
        func matches(_ pieces: ((UnsafeRawBufferPointer) -> Void) -> Void) -> Bool {
            bytes.withUnsafeBytes { stored in
                var offset = 0
                var difference = 0
                pieces { piece in
                    guard offset + 4 <= stored.count else {
                        difference |= 1
                        return
                    }
                    var length = 0
                    for index in 0..<4 { length |= Int(stored[offset + index]) << (8 * index) }
                    offset += 4
                    let end = min(stored.count, offset + length)
                    difference |= length ^ piece.count
                    // A word at a time while both have eight bytes left, then byte by byte.
                    let common = min(end - offset, piece.count)
                    var words: UInt64 = 0
                    var index = 0
                    while index + 8 <= common {
                        words |=
                            stored.loadUnaligned(fromByteOffset: offset + index, as: UInt64.self)
                            ^ piece.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                        index += 8
                    }
                    while index < common {
                        words |= UInt64(stored[offset + index] ^ piece[index])
                        index += 1
                    }
                    difference |= words == 0 ? 0 : 1
                    offset = end
                }
                return difference == 0 && offset == stored.count
            }
        }
    }

    /// One remembered answer: the key it answers, and the screen. The thread's own object: a
    /// quick answer retains it, and through it the screen that many threads share.
    final class Entry: Sendable {
        private let key: KeyBytes
        /// Kept alive by the entry; used through the unretained references below.
        private let reusable: ReusableAnswer
        /// The screen and the session's watch, reached without a retain: they are shared by
        /// every thread that serves the session, and each retain or release would write
        /// their cache lines.
        private let sharedScreen: Unretained<RenderedScreen>
        private let sharedWatch: Unretained<SessionWatch>?
        private let session: SessionKey?
        /// The screen's revision, copied: the check on every `GET` then reads the entry and
        /// the watch, not the shared screen as well.
        private let revision: Int
        private let route: String
        private let logContext: String?

        init(key: KeyBytes, reusable: ReusableAnswer, route: String, logContext: String?) {
            self.key = key
            self.reusable = reusable
            sharedScreen = Unretained(reusable.screen)
            sharedWatch = reusable.session.map { Unretained($0.watch) }
            session = reusable.session?.key
            revision = reusable.screen.revision
            self.route = route
            self.logContext = logContext
        }

        /// Whether the answer is still the session's current screen (an answer without a
        /// session, the screen at the default state, is current for as long as its
        /// catalogue is served; a reload makes a new cache).
        var isCurrent: Bool {
            guard let sharedWatch else { return true }
            return sharedWatch.with { $0.revision } == revision
        }

        /// Whether `request` has the bytes of the request this answered.
        func matches(_ request: UnparsedGet) -> Bool {
            key.matches { piece in
                piece(request.path)
                request.forEachHeader { name, value in
                    guard !ASCII.equalIgnoringCase(name, ResponseCache.validator) else { return }
                    piece(name)
                    piece(value)
                }
            }
        }

        /// Counts the read as use of the session.
        func touch(in store: any SessionStore) {
            guard let session, let sharedWatch else { return }
            sharedWatch.with { store.touch(session: session, watch: $0) }
        }

        /// The screen's 200, or its 304 for a client that has it, answered on this entry's
        /// behalf: the answer retains the entry, not the response.
        func answer(ifNoneMatch tags: String?) -> QuickAnswer? {
            sharedScreen.with { screen in
                screen.withPrepared(ifNoneMatch: tags) { prepared in
                    QuickAnswer(response: prepared, keptAliveBy: self, route: route, logContext: logContext)
                }
            }
        }
    }
}

/// A routed `GET`'s answer that repeats of the request may be given from memory
/// (``ResponseCache``): the screen sent, and the session whose watch says when it is no
/// longer current (none for the screen at the default state).
struct ReusableAnswer: Sendable {
    let cache: ResponseCache
    let screen: RenderedScreen
    let session: (key: SessionKey, watch: SessionWatch)?
}
