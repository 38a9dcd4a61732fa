import CLibFuzzer

#if canImport(Glibc)
    import Glibc
#endif

/// Starts libFuzzer from a fuzz target's `@main`.
///
/// SwiftPM links every executable with `main` aliased to the module's own entry point, so
/// libFuzzer's `main` is never reached; its driver is called with the same arguments instead.
public enum FuzzDriver {
    /// The signature libFuzzer calls for each input: `LLVMFuzzerTestOneInput`.
    public typealias TestOneInput = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

    /// Runs libFuzzer (fuzzing, or replaying the files given as arguments) and exits with its status.
    public static func run(_ testOneInput: TestOneInput) -> Never {
        var argumentCount = CommandLine.argc
        var arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argumentCount, &arguments, testOneInput))
    }

    /// libFuzzer's input as an array (empty for an empty input, whose pointer may be anything).
    public static func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
        guard let data, size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: size))
    }
}

/// Stops the process when a property the code promises does not hold, so that libFuzzer
/// reports a crash and keeps the input that broke it.
public func invariant(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
    file: StaticString = #fileID, line: UInt = #line
) {
    if !condition() { fatalError("invariant broken: \(message())", file: file, line: line) }
}
