/// The newest `capacity` elements appended, oldest first; appending to a full buffer drops
/// the oldest in O(1).
struct RingBuffer<Element> {
    private var storage: [Element] = []
    private var start = 0
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    var count: Int { storage.count }
    var isEmpty: Bool { storage.isEmpty }

    mutating func append(_ element: Element) {
        if storage.count < capacity {
            storage.append(element)
        } else {
            storage[start] = element
            start = (start + 1) % capacity
        }
    }

    /// The element at a position counted from the oldest.
    subscript(position: Int) -> Element {
        storage[(start + position) % storage.count]
    }

    var first: Element? { storage.isEmpty ? nil : self[0] }
    var last: Element? { storage.isEmpty ? nil : self[storage.count - 1] }
}
