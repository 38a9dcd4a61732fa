/// The newest elements appended, at most `capacity`, oldest first: appending to a full
/// buffer drops the oldest, and the oldest can be dropped at any time, both in O(1).
struct RingBuffer<Element> {
    private var storage: [Element?] = []
    /// Where the oldest element is, once the storage has reached `capacity`.
    private var start = 0
    private(set) var count = 0
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    var isEmpty: Bool { count == 0 }

    /// Appends `element`; returns the oldest element when the buffer was full and dropped it.
    @discardableResult
    mutating func append(_ element: Element) -> Element? {
        if storage.count < capacity {
            storage.append(element)
            count += 1
            return nil
        }
        let slot = (start + count) % capacity
        let dropped = count == capacity ? storage[slot] : nil
        storage[slot] = element
        if count == capacity {
            start = (start + 1) % capacity
        } else {
            count += 1
        }
        return dropped
    }

    /// Drops the oldest element and returns it; `nil` when the buffer is empty.
    @discardableResult
    mutating func removeFirst() -> Element? {
        guard count > 0 else { return nil }
        let index = start % storage.count
        let first = storage[index]
        storage[index] = nil
        start = (index + 1) % capacity
        count -= 1
        return first
    }

    /// The element at a position counted from the oldest; `nil` past the end. Slots are
    /// optional so that a dropped element is freed at once.
    func element(at position: Int) -> Element? {
        guard position >= 0, position < count else { return nil }
        return storage[(start + position) % storage.count]
    }

    var first: Element? { element(at: 0) }
    var last: Element? { element(at: count - 1) }
}
