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
