// The platform's C library, for every module that imports TabulaPlatform: the one place
// that names it (glibc on Debian, musl in a fully static build, Darwin on Apple's systems).
#if canImport(Glibc)
    @_exported import Glibc
#elseif canImport(Musl)
    @_exported import Musl
#elseif canImport(Darwin)
    @_exported import Darwin
#endif

/// `shutdown(2)`, under a name that types with a `shutdown()` of their own can call.
@discardableResult
public func shutdownSocket(_ descriptor: Int32, _ how: Int32) -> Int32 {
    shutdown(descriptor, how)
}

/// `read(2)`, under a name that types with a `read` of their own can call.
public func readDescriptor(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

/// `write(2)`, under a name that types with a `write` of their own can call.
public func writeDescriptor(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}

/// A file's modification time in nanoseconds since the epoch.
public func modificationNanoseconds(_ status: stat) -> Int {
    #if canImport(Darwin)
        Int(status.st_mtimespec.tv_sec) * 1_000_000_000 + Int(status.st_mtimespec.tv_nsec)
    #else
        Int(status.st_mtim.tv_sec) * 1_000_000_000 + Int(status.st_mtim.tv_nsec)
    #endif
}
