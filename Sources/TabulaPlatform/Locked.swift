/// A value guarded by a mutex. Used instead of `Synchronization.Mutex` so the package
/// keeps building for older Apple platforms, where the core is used by clients.
public final class Locked<Value>: @unchecked Sendable {
    @usableFromInline let lock = PlainLock()
    @usableFromInline var value: Value

    public init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value. Inlinable, so that callers in other
    /// modules get a specialized copy instead of runtime generic dispatch.
    @inlinable
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        try lock.withLock { () throws(Failure) -> Result in try body(&value) }
    }
}
