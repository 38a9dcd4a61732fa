/// A dictionary bounded by its number of entries and by their bytes, as its owner counts
/// each entry's: an insertion that takes it past either bound drops other entries, at least
/// an eighth of them so that a full dictionary does not drop one on every insertion, and
/// more while it is still past. Which entries go is arbitrary (the dictionary's order):
/// the caches that use it hold what can be made again.
///
/// Inlinable, so that its users' code is specialized for their types rather than looking up
/// generic metadata on every call (the caches sit on the request path).
public struct BoundedDictionary<Key: Hashable, Value> {
    @usableFromInline
    struct Stored {
        @usableFromInline let value: Value
        @usableFromInline let bytes: Int

        @inlinable
        init(value: Value, bytes: Int) {
            self.value = value
            self.bytes = bytes
        }
    }

    @usableFromInline var storage: [Key: Stored] = [:]
    /// The bytes of the entries, as counted when each was inserted.
    @inlinable public var bytes: Int { storedBytes }
    @usableFromInline var storedBytes = 0
    public let maxCount: Int
    public let maxBytes: Int

    @inlinable
    public init(maxCount: Int, maxBytes: Int) {
        self.maxCount = max(1, maxCount)
        self.maxBytes = max(0, maxBytes)
    }

    @inlinable
    public var count: Int { storage.count }

    @inlinable
    public subscript(key: Key) -> Value? {
        storage[key]?.value
    }

    @inlinable
    public mutating func removeValue(forKey key: Key) {
        guard let removed = storage.removeValue(forKey: key) else { return }
        storedBytes -= removed.bytes
    }

    /// Keeps `value`, counted as `bytes`, under `key` (replacing what was there), then drops
    /// other entries until both bounds hold; the new entry stays even when it alone is
    /// larger than `maxBytes`. Returns how many entries it dropped, for its owner's count of
    /// the bound taking effect.
    @inlinable @discardableResult
    public mutating func insert(_ value: Value, bytes entryBytes: Int, forKey key: Key) -> Int {
        if let replaced = storage.updateValue(Stored(value: value, bytes: entryBytes), forKey: key) { storedBytes -= replaced.bytes }
        storedBytes += entryBytes
        guard storage.count > maxCount || storedBytes > maxBytes else { return 0 }
        return dropOthers(than: key)
    }

    /// Drops entries other than `key`'s until both bounds hold, and at least an eighth;
    /// returns how many.
    @usableFromInline
    mutating func dropOthers(than key: Key) -> Int {
        let share = max(1, storage.count / 8)
        var victims: [Key] = []
        var freed = 0
        for (other, entry) in storage where other != key {
            let withinBounds = storage.count - victims.count <= maxCount && storedBytes - freed <= maxBytes
            if victims.count >= share && withinBounds { break }
            victims.append(other)
            freed += entry.bytes
        }
        for victim in victims { storage[victim] = nil }
        storedBytes -= freed
        return victims.count
    }
}
