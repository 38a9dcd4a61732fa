#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A small number for the calling thread, given out in order of first use: threads that
/// use it as a shard index share nothing with each other.
public enum ThreadSlot {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()
    private static let next = Atomic<Int>(1)

    public static var current: Int {
        if let slot = pthread_getspecific(key) { return Int(bitPattern: slot) - 1 }
        let slot = next.wrappingAdd(1, ordering: .relaxed).oldValue
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: slot))
        return slot - 1
    }
}
