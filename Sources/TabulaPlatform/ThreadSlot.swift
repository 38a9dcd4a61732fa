internal import CTabulaPlatform
import Synchronization

/// A small number for the calling thread, given out in order of first use: threads that
/// use it as a shard index share nothing with each other.
public enum ThreadSlot {
    private static let next = Atomic<Int>(1)

    public static var current: Int {
        let kept = tabula_thread_slot()
        if kept != 0 { return kept - 1 }
        let slot = next.wrappingAdd(1, ordering: .relaxed).oldValue
        tabula_set_thread_slot(slot)
        return slot - 1
    }
}
