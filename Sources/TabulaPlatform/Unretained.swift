/// A reference to an object shared by many threads, read without retaining it: each retain
/// and release would write the object's reference count, and a count that every thread
/// writes moves its cache line between the cores on every use (the largest user-space cost
/// of a `GET` in `perf`, before these). Something else must keep the object alive for as
/// long as this is read: the owner of this value holds the object in a constant property
/// beside it, or a lock-guarded strong reference is let go only once no reader can see
/// this any more. `Scripts/bench-pairs` measures what it saves.
public struct Unretained<Object: AnyObject>: @unchecked Sendable {
    @usableFromInline let reference: Unmanaged<Object>

    /// Refers to `object` without retaining it.
    public init(_ object: Object) {
        reference = Unmanaged.passUnretained(object)
    }

    /// Runs `body` with the object, retaining it only if `body` keeps it.
    @inlinable
    public func with<Result>(_ body: (Object) throws -> Result) rethrows -> Result {
        try reference._withUnsafeGuaranteedRef(body)
    }

    /// The object, retained: for a caller that keeps it.
    public var object: Object { reference.takeUnretainedValue() }
}
