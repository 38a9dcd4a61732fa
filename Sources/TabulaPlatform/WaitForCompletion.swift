/// Runs an operation that reports through a completion handler and waits for its result,
/// for the few calls made before the service serves (keeping definitions at start).
public func waitForCompletion<Value: Sendable>(_ operation: (@escaping @Sendable (Value) -> Void) -> Void) -> Value? {
    let channel = BlockingQueue<Value>(capacity: 1)
    operation { value in _ = channel.push(value) }
    return channel.take(maximum: 1)?.first
}
