import TabulaCore
import Testing

@testable import TabulaService

/// A watch vouches for a session's current revision: what the server threads' screen
/// caches trust instead of asking the store on every GET.
@Suite struct SessionWatchTests {
    @Test func aWatchOnlyMovesForwardAndStaysEnded() {
        let watch = SessionWatch(revision: 3, lastUsed: 0)
        watch.advance(to: 5)
        #expect(watch.revision == 5)
        // A slow writer's older state does not take the watch back.
        watch.advance(to: 4)
        #expect(watch.revision == 5)
        watch.end()
        watch.advance(to: 9)
        #expect(watch.revision == SessionWatch.ended)
    }

    @Test func aTouchWritesOnlyOncePerInterval() {
        let watch = SessionWatch(revision: 0, lastUsed: 1_000)
        #expect(!watch.touch(at: 1_500, interval: 1_000))
        #expect(watch.lastUsed.load(ordering: .relaxed) == 1_000)
        #expect(watch.touch(at: 2_000, interval: 1_000))
        #expect(watch.lastUsed.load(ordering: .relaxed) == 2_000)
        #expect(!watch.touch(at: 2_999, interval: 1_000))
    }

    @Test func theStateCacheAdvancesAWatchAndEndsItWhenTheStateLeaves() throws {
        let cache = SessionStateCache(maxBytes: 16 * 16 * SessionStateCache.entryOverhead)
        let token = SessionToken.make()
        cache.put(SessionKey(token), digest: testDigest(token), SessionState(revision: 1))
        let watch = try #require(cache.get(SessionKey(token))?.watch)
        cache.put(SessionKey(token), digest: testDigest(token), SessionState(revision: 2))
        #expect(cache.get(SessionKey(token))?.watch === watch)
        #expect(watch.revision == 2)
        // An older state read from the database before the write does not replace it.
        cache.put(SessionKey(token), digest: testDigest(token), SessionState(revision: 1))
        #expect(cache.get(SessionKey(token))?.state.revision == 2)
        cache.remove(digest: testDigest(token))
        #expect(watch.revision == SessionWatch.ended)
        #expect(cache.get(SessionKey(token)) == nil)
    }

    @Test func aStateDroppedToBoundTheCacheEndsItsWatch() {
        // 16 shards of 16 empty states: filling well past 256 of them drops some of the first ones.
        let cache = SessionStateCache(maxBytes: 16 * 16 * SessionStateCache.entryOverhead)
        let tokens = (0..<1_024).map { _ in SessionToken.make() }
        var watches: [SessionWatch] = []
        for token in tokens {
            cache.put(SessionKey(token), digest: testDigest(token), SessionState(revision: 1))
            if let watch = cache.get(SessionKey(token))?.watch { watches.append(watch) }
        }
        #expect(watches.count == tokens.count)
        let stillCached = tokens.indices.filter { cache.get(SessionKey(tokens[$0])) != nil }
        let ended = watches.indices.filter { watches[$0].revision == SessionWatch.ended }
        #expect(stillCached.count < tokens.count)
        #expect(Set(ended) == Set(tokens.indices).subtracting(stillCached))
        // A dropped state is no longer found by its digest either; a kept one is.
        #expect(tokens.indices.filter { cache.get(digest: testDigest(tokens[$0])) != nil } == stillCached)
    }
}
