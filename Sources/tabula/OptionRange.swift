/// The values `tabula serve` accepts for its numeric options: wide enough for any real
/// deployment, and narrow enough that nothing built from them overflows (connection limits
/// add up into libmicrohttpd's 32-bit settings, seconds become milliseconds and
/// nanoseconds, bytes are allocated).
enum OptionRange {
    static let threads = 1...1024
    static let maxBody = 1...(64 << 20)
    static let connectionTimeout = 1...86_400
    static let maxConnections = 1...1_000_000
    static let maxConnectionsPerIP = 0...1_000_000
    static let connectionMemoryLimit = 4096...(16 << 20)
    static let shutdownGraceSeconds = 0.0...3600.0
    static let headerTimeout = 1...3600
    static let databasePoolSize = 1...256
    static let keepRevisions = 1...10_000_000
    static let keepDefinitions = 1...10_000
    static let maxStateBytes = 1...(64 << 20)
    static let maxListLength = 1...1_000_000
    static let maxStreams = 1...1_000_000
    static let maxStreamsPerSession = 1...1_000_000
    static let maxNewSessionsPerMinute = 0...1_000_000
    static let maxClientKinds = 1...1024
    static let maxHistoryBytes = 1024...(1 << 30)
    static let maxAnswersPerSession = 1...1_000_000
    static let stateCacheBytes = (1 << 20)...(1 << 40)
    static let screenCacheBytes = (1 << 20)...(1 << 40)
}
