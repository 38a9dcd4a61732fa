import ArgumentParser
import Logging
import TabulaCore
import TabulaHTTP
import TabulaICU
import TabulaPlatform
import TabulaService

struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the screens of a directory over HTTP.",
        discussion: """
            Every option can also be set by the environment variable named in its help; an \
            option given on the command line wins. The server stops gracefully on SIGTERM or \
            SIGINT: it stops accepting connections, lets requests in progress finish (up to \
            --shutdown-grace seconds) and exits 0. SIGHUP reloads the screen definitions: \
            when every file is valid, changed screens reach open streams as change sets; \
            otherwise the screens served so far keep serving and the problems are logged.
            """
    )

    @Option(parsing: .unconditional, help: "The address to listen on: 127.0.0.1, 0.0.0.0, ::1 ... (env TABULA_HOST, default \(Defaults.server.host))")
    var host: String?

    @Option(parsing: .unconditional, help: "The port; 0 picks a free one, which the startup log names (env TABULA_PORT, default \(Defaults.server.port))")
    var port: Int?

    @Option(parsing: .unconditional, help: "The directory of screen definitions (env TABULA_SCREENS, default \(Defaults.screens))")
    var screens: String?

    @Option(
        parsing: .unconditional,
        help: "The directory of string tables, one LOCALE.json each (env TABULA_STRINGS, default: the strings directory beside the screens, if any)")
    var strings: String?

    @Option(
        parsing: .unconditional, help: "The locale whose string table has every message (env TABULA_DEFAULT_LOCALE, default \(StringSources.defaultLocale))")
    var defaultLocale: String?

    @OptionGroup var urlSchemes: URLSchemeOptions

    @OptionGroup var actions: ActionOptions

    @Flag(
        help:
            "Reload the screen definitions when a file of the directory changes, is added or removed, as SIGHUP does (env TABULA_WATCH=1)")
    var watch = false

    @Flag(help: "Serve the preview page for authors at /preview (env TABULA_PREVIEW=1; off by default)")
    var preview = false

    @Option(parsing: .unconditional, help: "Worker threads (env TABULA_THREADS, default: one per processor, plus one)")
    var threads: Int?

    @Option(
        name: .customLong("max-body"), parsing: .unconditional,
        help: "Largest request body in bytes; larger ones get 413 (env TABULA_MAX_BODY, default \(Defaults.server.maxBodyBytes))"
    )
    var maxBody: Int?

    @Option(parsing: .unconditional, help: "trace, debug, info, notice, warning, error or critical (env TABULA_LOG_LEVEL, default \(Defaults.logLevel))")
    var logLevel: String?

    @Option(
        parsing: .unconditional,
        help: "Seconds before an idle connection is closed (env TABULA_CONNECTION_TIMEOUT, default \(Defaults.server.connectionTimeoutSeconds))")
    var connectionTimeout: Int?

    @Option(
        parsing: .unconditional,
        help:
            "Seconds a request's line and headers may take to arrive, however slowly they trickle; the connection is closed after (env TABULA_HEADER_TIMEOUT, default \(Defaults.server.headerTimeoutSeconds))"
    )
    var headerTimeout: Int?

    @Option(
        parsing: .unconditional,
        help: "Open connections for requests, besides --max-streams (env TABULA_MAX_CONNECTIONS, default \(Defaults.server.maxConnections))")
    var maxConnections: Int?

    @Option(
        name: .customLong("max-connections-per-ip"), parsing: .unconditional,
        help:
            "Open connections per client address, 0 for no limit; raise it behind a load balancer (env TABULA_MAX_CONNECTIONS_PER_IP, default \(Defaults.server.maxConnectionsPerIP))"
    )
    var maxConnectionsPerIP: Int?

    @Option(
        parsing: .unconditional,
        help:
            "Bytes per connection for the request line and headers; larger headers get 431 (env TABULA_CONNECTION_MEMORY_LIMIT, default \(Defaults.server.connectionMemoryLimit))"
    )
    var connectionMemoryLimit: Int?

    @Option(
        parsing: .unconditional,
        help:
            "Seconds a graceful shutdown waits for requests in progress (env TABULA_SHUTDOWN_GRACE, default \(Defaults.server.shutdownGraceSeconds.plainText))")
    var shutdownGrace: Double?

    @Option(parsing: .unconditional, help: "Where sessions live: sqlite, postgres or memory (env TABULA_STORE, default \(Defaults.storeKind))")
    var store: String?

    @Option(parsing: .unconditional, help: "The SQLite store's directory, created if missing (env TABULA_DATA_DIR, default \(Defaults.dataDirectory))")
    var dataDir: String?

    @Flag(
        help:
            "Skip SQLite's quick_check of the whole file at start, which refuses a damaged file; for a file too large to read at every start (env TABULA_SKIP_QUICK_CHECK=1)"
    )
    var skipQuickCheck = false

    @Option(parsing: .unconditional, help: "The PostgreSQL store's connection URL, postgresql://user:password@host:port/database (env TABULA_DATABASE_URL)")
    var databaseURL: String?

    @Option(
        parsing: .unconditional,
        help: "PostgreSQL connections (and worker threads) of this process (env TABULA_DATABASE_POOL_SIZE, default \(PostgresSessionStore.defaultPoolSize))")
    var databasePoolSize: Int?

    @Option(
        parsing: .unconditional,
        help: "Revisions per session kept rebuildable for catch-up; older ones get 409 (env TABULA_KEEP_REVISIONS, default \(Defaults.store.keepRevisions))")
    var keepRevisions: Int?

    @Option(
        parsing: .unconditional,
        help:
            "Versions of each screen's definition kept for clients that still show them; older ones get 409 (env TABULA_KEEP_DEFINITIONS, default \(Defaults.store.keepDefinitions))"
    )
    var keepDefinitions: Int?

    @Option(
        parsing: .unconditional,
        help:
            "How long an eventId's answer is kept for retries: seconds or 90s, 15m, 24h, 30d (env TABULA_IDEMPOTENCY_TTL, default \(DurationText.text(Defaults.store.idempotencyTTLSeconds)))"
    )
    var idempotencyTTL: String?

    @Option(
        parsing: .unconditional,
        help:
            "Sessions idle longer than this are removed with their log (env TABULA_SESSION_TTL, default \(DurationText.text(Defaults.store.sessionTTLSeconds)))"
    )
    var sessionTTL: String?

    @Option(
        parsing: .unconditional,
        help:
            "Feed entries older than this are removed; reading after one of them gets 410 (env TABULA_FEED_RETENTION, default \(DurationText.text(Defaults.store.feedRetentionSeconds)))"
    )
    var feedRetention: String?

    @Option(parsing: .unconditional, help: "Require Authorization: Bearer KEY on every /v1 route (env TABULA_API_KEY, default: no key)")
    var apiKey: String?

    @Option(
        parsing: .unconditional,
        help:
            "The app's backend's key, Authorization: Bearer KEY on the backend routes; it passes for --api-key too (env TABULA_BACKEND_KEY, default: backend routes off)"
    )
    var backendKey: String?

    @Option(parsing: .unconditional, help: "Origins allowed cross-origin access, comma-separated, or * (env TABULA_CORS_ORIGINS, default: CORS off)")
    var corsOrigins: String?

    @Option(
        parsing: .unconditional,
        help: "Largest session state in bytes (as JSON); events beyond it get 422 (env TABULA_MAX_STATE_BYTES, default \(Defaults.stateLimits.maxStateBytes))")
    var maxStateBytes: Int?

    @Option(
        parsing: .unconditional,
        help: "Most records in one state list; events beyond it get 422 (env TABULA_MAX_LIST_LENGTH, default \(Defaults.stateLimits.maxListLength))")
    var maxListLength: Int?

    @Option(
        parsing: .unconditional,
        help:
            "How often an idle stream gets a heartbeat, which keeps proxies open and finds clients that left: seconds or 15s, 1m (env TABULA_STREAM_HEARTBEAT, default \(DurationText.text(Defaults.streams.heartbeatSeconds)))"
    )
    var streamHeartbeat: String?

    @Option(
        parsing: .unconditional,
        help:
            "Open streams in all, screens' and the feed's, held besides --max-connections; more get 429 (env TABULA_MAX_STREAMS, default \(Defaults.streams.maxStreams))"
    )
    var maxStreams: Int?

    @Option(
        parsing: .unconditional,
        help: "Open screen streams of one session; more get 429 (env TABULA_MAX_STREAMS_PER_SESSION, default \(Defaults.streams.maxStreamsPerSession))"
    )
    var maxStreamsPerSession: Int?

    @Option(
        parsing: .unconditional,
        help:
            "New sessions one client address may create a minute, 0 for no limit; more get 429 (env TABULA_MAX_NEW_SESSIONS_PER_MINUTE, default \(Defaults.service.newSessionsPerMinute))"
    )
    var maxNewSessionsPerMinute: Int?

    @Option(
        parsing: .unconditional,
        help:
            "Proxies whose X-Forwarded-For names the client, for the limits per address: addresses or CIDR ranges, comma-separated (env TABULA_TRUSTED_PROXY, default: none)"
    )
    var trustedProxy: String?

    @Option(
        parsing: .unconditional,
        help: "Row kinds a client context may list; more get 400 (env TABULA_MAX_CLIENT_KINDS, default \(Defaults.service.maxClientKinds))")
    var maxClientKinds: Int?

    @Option(
        parsing: .unconditional,
        help:
            "Bytes of past states and events kept per session; beyond, its oldest revisions are dropped (env TABULA_MAX_HISTORY_BYTES, default \(Defaults.store.maxHistoryBytes))"
    )
    var maxHistoryBytes: Int?

    @Option(
        parsing: .unconditional,
        help:
            "Answers of eventIds kept per session for retries, the newest (env TABULA_MAX_ANSWERS_PER_SESSION, default \(Defaults.store.maxAnswersPerSession))"
    )
    var maxAnswersPerSession: Int?

    @Option(
        parsing: .unconditional,
        help: "Bytes of current states the SQLite store keeps in memory (env TABULA_STATE_CACHE_BYTES, default \(Defaults.store.stateCacheBytes))")
    var stateCacheBytes: Int?

    @Option(
        parsing: .unconditional,
        help:
            "Bytes of rendered screens (as JSON) kept in memory for sessions; beyond, screens are rendered again (env TABULA_SCREEN_CACHE_BYTES, default \(Defaults.service.screenCacheBytes))"
    )
    var screenCacheBytes: Int?

    /// Resolves every setting before the run, so that a wrong one is reported with this
    /// command's usage (ArgumentParser shows the root's for an error thrown by `run`).
    func validate() throws {
        _ = try resolvedSettings()
    }

    func run() throws {
        // Before any thread starts (the first logger starts the log's writer), so that only
        // this thread receives them, in the wait below: a thread that left them unblocked
        // would take a SIGTERM or SIGHUP sent while this one is busy (starting, or reloading)
        // and end the process at once.
        ServiceGroup.blockStopSignals()
        let settings = try resolvedSettings()
        // Before anything sharded per thread is built: a shard for each thread that serves.
        ThreadShards.reserve(threads: settings.server.threads + ServiceConfiguration().workerThreads)
        let level = settings.logLevel
        LoggingSystem.bootstrap { label in TabulaLogHandler(label: label, level: level) }
        defer { BufferedStandardOutput.shared.flush() }
        let logger = Logger(label: "tabula")
        let catalogue = try loadCatalogue(settings.definitions, warn: { logger.warning("\($0)") })

        var serviceConfiguration = ServiceConfiguration()
        serviceConfiguration.accessLog = .buffered(.shared, label: logger.label)
        serviceConfiguration.apiKey = settings.apiKey
        serviceConfiguration.backendKey = settings.backendKey
        serviceConfiguration.cors = settings.cors
        serviceConfiguration.stateLimits = settings.stateLimits
        serviceConfiguration.streams = settings.streams
        serviceConfiguration.preview = settings.preview
        serviceConfiguration.newSessionsPerMinute = settings.newSessionsPerMinute
        serviceConfiguration.trustedProxies = settings.trustedProxies
        serviceConfiguration.maxClientKinds = settings.maxClientKinds
        serviceConfiguration.screenCacheBytes = settings.screenCacheBytes
        serviceConfiguration.urlSchemes = settings.urlSchemes
        serviceConfiguration.actions = settings.actions
        if let violation = settings.stateLimits.violation(of: catalogue.initialState) {
            throw CommandFailure("the screens' initial state breaks the state limits (\(violation)); raise --max-state-bytes or --max-list-length")
        }
        let store = try openStore(settings, catalogue: catalogue, logger: logger)
        let service: TabulaService
        do {
            service = try TabulaService(configuration: serviceConfiguration, catalogue: catalogue, store: store, logger: logger)
        } catch {
            store.close()
            throw CommandFailure("cannot keep the screens' definitions in the \(settings.storeKind) store: \(error)")
        }
        if let reason = service.actionsUnavailable {
            service.close()
            store.close()
            throw CommandFailure("cannot call the backend of --actions-url: \(reason)")
        }
        // The catalogue's string tables are loaded and its default screens rendered: hand
        // back ICU's code that only loading ran, before any thread could be loading ICU.
        ICULocaleRules.releaseLoadingPages()
        let directory = settings.definitions
        let group = ServiceGroup(store: store, service: service, server: settings.server, logger: logger)
        do {
            try group.start(watching: settings.watch ? directory : nil)
        } catch {
            throw CommandFailure(error.description)
        }
        // Loading the screens and migrating the database free most of what they allocate;
        // hand those pages back rather than keep them as idle memory. So with the code only
        // the start ran (reading definitions, compiling their patterns, migrations): the
        // pages serving needs come back on first use.
        releaseFreedMemory()
        if let executable = ResidentPages.executablePath { ResidentPages.release { $0 == executable } }
        // An IPv6 address goes in brackets, so that the line holds a URL one can use.
        let base = "http://\(URLHost.bracketed(settings.server.host)):\(group.server.port)"
        logger.notice("listening on \(base) with \(catalogue.screens.count) screens from \(settings.catalogue.screens), \(store.name) store")
        for (path, method) in group.watching { logger.notice("watching \(path) for changes (\(method))") }
        if settings.preview { logger.notice("preview: \(base)/preview") }

        let received = group.waitForStopSignal {
            logger.notice("received SIGHUP; reloading the definitions of \(settings.catalogue.screens)")
            service.reload(from: directory)
        }
        logger.notice("received \(received == SIGTERM ? "SIGTERM" : "SIGINT"); stopping after requests in progress")
        group.stop()
        logger.notice("stopped")
    }

    /// What an option not given falls back to: the configuration types' own defaults, and the
    /// few that only the command has.
    enum Defaults {
        static let server = ServerConfiguration()
        static let store = StoreSettings()
        static let stateLimits = StateLimits()
        static let streams = StreamSettings()
        static let service = ServiceConfiguration()
        static let screens = "Fixtures/screens"
        static let dataDirectory = "./data"
        static let storeKind = "sqlite"
        static let logLevel = "info"
    }

    struct Settings {
        var server: ServerConfiguration
        var catalogue: CatalogueSettings
        var watch: Bool
        var preview: Bool
        var logLevel: Logger.Level
        var storeKind: String
        var dataDirectory: String
        var skipQuickCheck: Bool
        var databaseURL: String?
        var databasePoolSize: Int
        var store: StoreSettings
        var apiKey: APIKey?
        var backendKey: APIKey?
        var cors: CORSPolicy?
        var stateLimits: StateLimits
        var streams: StreamSettings
        var newSessionsPerMinute: Int
        var trustedProxies: TrustedProxies
        var maxClientKinds: Int
        var screenCacheBytes: Int

        var urlSchemes: URLSchemes
        var actions: ActionSettings?

        /// The screens with their string tables.
        var definitions: DefinitionDirectory { catalogue.directory(urlSchemes: urlSchemes) }
    }

    func openStore(_ settings: Settings, catalogue: Catalogue, logger: Logger) throws -> any SessionStore {
        do {
            switch settings.storeKind {
            case "memory":
                return MemorySessionStore(settings: settings.store)
            case "sqlite":
                return try SQLiteSessionStore(
                    directory: settings.dataDirectory, settings: settings.store, logger: logger, quickCheck: !settings.skipQuickCheck)
            default:
                guard let url = settings.databaseURL else {
                    throw ValidationError("--store postgres needs --database-url (or TABULA_DATABASE_URL)")
                }
                return try PostgresSessionStore(
                    url: url, poolSize: settings.databasePoolSize, settings: settings.store, logger: logger)
            }
        } catch let error as StoreError {
            throw CommandFailure("cannot open the \(settings.storeKind) store: \(error)")
        }
    }

    func resolvedSettings() throws -> Settings {
        var server = ServerConfiguration()
        server.host = try EnvironmentSetting.resolve(host, "TABULA_HOST", default: server.host)
        let port = try EnvironmentSetting.resolve(self.port, "TABULA_PORT", default: Int(server.port))
        guard let validPort = UInt16(exactly: port) else { throw ValidationError("--port must be between 0 and 65535, not \(port)") }
        server.port = validPort
        server.threads = try bounded(EnvironmentSetting.resolve(threads, "TABULA_THREADS", default: server.threads), "threads", OptionRange.threads)
        server.maxBodyBytes = try bounded(EnvironmentSetting.resolve(maxBody, "TABULA_MAX_BODY", default: server.maxBodyBytes), "max-body", OptionRange.maxBody)
        server.connectionTimeoutSeconds = try bounded(
            EnvironmentSetting.resolve(connectionTimeout, "TABULA_CONNECTION_TIMEOUT", default: server.connectionTimeoutSeconds), "connection-timeout",
            OptionRange.connectionTimeout)
        server.headerTimeoutSeconds = try bounded(
            EnvironmentSetting.resolve(headerTimeout, "TABULA_HEADER_TIMEOUT", default: server.headerTimeoutSeconds), "header-timeout",
            OptionRange.headerTimeout)
        server.maxConnections = try bounded(
            EnvironmentSetting.resolve(maxConnections, "TABULA_MAX_CONNECTIONS", default: server.maxConnections), "max-connections", OptionRange.maxConnections)
        server.maxConnectionsPerIP = try bounded(
            EnvironmentSetting.resolve(maxConnectionsPerIP, "TABULA_MAX_CONNECTIONS_PER_IP", default: server.maxConnectionsPerIP), "max-connections-per-ip",
            OptionRange.maxConnectionsPerIP)
        server.connectionMemoryLimit = try bounded(
            EnvironmentSetting.resolve(connectionMemoryLimit, "TABULA_CONNECTION_MEMORY_LIMIT", default: server.connectionMemoryLimit),
            "connection-memory-limit", OptionRange.connectionMemoryLimit)
        let grace = try EnvironmentSetting.resolve(shutdownGrace, "TABULA_SHUTDOWN_GRACE", default: server.shutdownGraceSeconds)
        let graceRange = OptionRange.shutdownGraceSeconds
        guard grace.isFinite, graceRange.contains(grace) else {
            throw ValidationError(
                "--shutdown-grace must be between \(graceRange.lowerBound.plainText) and \(graceRange.upperBound.plainText) seconds, not \(grace)")
        }
        server.shutdownGraceSeconds = grace
        let levelName = try EnvironmentSetting.resolve(logLevel, "TABULA_LOG_LEVEL", default: Defaults.logLevel)
        guard let level = Logger.Level(rawValue: levelName.lowercased()) else {
            throw ValidationError("--log-level (or TABULA_LOG_LEVEL) \"\(levelName)\" is not one of trace, debug, info, notice, warning, error, critical")
        }
        let catalogue = try CatalogueSettings(screens: screens, strings: strings, defaultLocale: defaultLocale)
        let storeKind = try EnvironmentSetting.resolve(store, "TABULA_STORE", default: Defaults.storeKind)
        guard ["sqlite", "postgres", "memory"].contains(storeKind) else {
            throw ValidationError("--store (or TABULA_STORE) \"\(storeKind)\" is not one of sqlite, postgres, memory")
        }
        var storeSettings = StoreSettings()
        storeSettings.keepRevisions = try bounded(
            EnvironmentSetting.resolve(keepRevisions, "TABULA_KEEP_REVISIONS", default: storeSettings.keepRevisions), "keep-revisions",
            OptionRange.keepRevisions)
        storeSettings.keepDefinitions = try bounded(
            EnvironmentSetting.resolve(keepDefinitions, "TABULA_KEEP_DEFINITIONS", default: storeSettings.keepDefinitions), "keep-definitions",
            OptionRange.keepDefinitions)
        storeSettings.idempotencyTTLSeconds = try duration(
            idempotencyTTL, "TABULA_IDEMPOTENCY_TTL", "idempotency-ttl", default: storeSettings.idempotencyTTLSeconds)
        storeSettings.sessionTTLSeconds = try duration(sessionTTL, "TABULA_SESSION_TTL", "session-ttl", default: storeSettings.sessionTTLSeconds)
        storeSettings.feedRetentionSeconds = try duration(
            feedRetention, "TABULA_FEED_RETENTION", "feed-retention", default: storeSettings.feedRetentionSeconds)
        var streams = StreamSettings()
        streams.heartbeatSeconds = try duration(
            streamHeartbeat, "TABULA_STREAM_HEARTBEAT", "stream-heartbeat", default: streams.heartbeatSeconds)
        streams.maxStreams = try bounded(
            EnvironmentSetting.resolve(maxStreams, "TABULA_MAX_STREAMS", default: streams.maxStreams), "max-streams", OptionRange.maxStreams)
        streams.maxStreamsPerSession = try bounded(
            EnvironmentSetting.resolve(maxStreamsPerSession, "TABULA_MAX_STREAMS_PER_SESSION", default: streams.maxStreamsPerSession),
            "max-streams-per-session", OptionRange.maxStreamsPerSession)
        server.maxStreams = streams.maxStreams
        // A client gone without closing acknowledges no heartbeat: its stream ends within
        // two of them, as api.md says, rather than after TCP's own retries.
        server.streamUnacknowledgedSeconds = streams.heartbeatSeconds > Int.max / 2 ? Int.max : 2 * streams.heartbeatSeconds
        storeSettings.maxHistoryBytes = try bounded(
            EnvironmentSetting.resolve(maxHistoryBytes, "TABULA_MAX_HISTORY_BYTES", default: storeSettings.maxHistoryBytes), "max-history-bytes",
            OptionRange.maxHistoryBytes)
        storeSettings.maxAnswersPerSession = try bounded(
            EnvironmentSetting.resolve(maxAnswersPerSession, "TABULA_MAX_ANSWERS_PER_SESSION", default: storeSettings.maxAnswersPerSession),
            "max-answers-per-session", OptionRange.maxAnswersPerSession)
        storeSettings.stateCacheBytes = try bounded(
            EnvironmentSetting.resolve(stateCacheBytes, "TABULA_STATE_CACHE_BYTES", default: storeSettings.stateCacheBytes), "state-cache-bytes",
            OptionRange.stateCacheBytes)
        let newSessionsPerMinute = try bounded(
            EnvironmentSetting.resolve(maxNewSessionsPerMinute, "TABULA_MAX_NEW_SESSIONS_PER_MINUTE", default: Defaults.service.newSessionsPerMinute),
            "max-new-sessions-per-minute", OptionRange.maxNewSessionsPerMinute)
        let maxClientKinds = try bounded(
            EnvironmentSetting.resolve(maxClientKinds, "TABULA_MAX_CLIENT_KINDS", default: Defaults.service.maxClientKinds), "max-client-kinds",
            OptionRange.maxClientKinds)
        return Settings(
            server: server, catalogue: catalogue,
            watch: try EnvironmentSetting.flag(watch, "TABULA_WATCH"),
            preview: try EnvironmentSetting.flag(preview, "TABULA_PREVIEW"), logLevel: level, storeKind: storeKind,
            dataDirectory: try EnvironmentSetting.resolve(dataDir, "TABULA_DATA_DIR", default: Defaults.dataDirectory),
            skipQuickCheck: try EnvironmentSetting.flag(skipQuickCheck, "TABULA_SKIP_QUICK_CHECK"),
            databaseURL: databaseURL ?? EnvironmentSetting.value("TABULA_DATABASE_URL"),
            databasePoolSize: try bounded(
                EnvironmentSetting.resolve(databasePoolSize, "TABULA_DATABASE_POOL_SIZE", default: PostgresSessionStore.defaultPoolSize), "database-pool-size",
                OptionRange.databasePoolSize),
            store: storeSettings, apiKey: try resolvedKey(apiKey, "TABULA_API_KEY", "API key"),
            backendKey: try resolvedKey(backendKey, "TABULA_BACKEND_KEY", "backend key"), cors: try resolvedCORS(),
            stateLimits: StateLimits(
                maxStateBytes: try bounded(
                    EnvironmentSetting.resolve(maxStateBytes, "TABULA_MAX_STATE_BYTES", default: Defaults.stateLimits.maxStateBytes), "max-state-bytes",
                    OptionRange.maxStateBytes),
                maxListLength: try bounded(
                    EnvironmentSetting.resolve(maxListLength, "TABULA_MAX_LIST_LENGTH", default: Defaults.stateLimits.maxListLength), "max-list-length",
                    OptionRange.maxListLength)),
            streams: streams, newSessionsPerMinute: newSessionsPerMinute, trustedProxies: try resolvedTrustedProxies(),
            maxClientKinds: maxClientKinds,
            screenCacheBytes: try bounded(
                EnvironmentSetting.resolve(screenCacheBytes, "TABULA_SCREEN_CACHE_BYTES", default: Defaults.service.screenCacheBytes),
                "screen-cache-bytes", OptionRange.screenCacheBytes),
            urlSchemes: try urlSchemes.resolved(), actions: try actions.resolved())
    }

    private func resolvedTrustedProxies() throws -> TrustedProxies {
        guard let text = trustedProxy ?? EnvironmentSetting.value("TABULA_TRUSTED_PROXY") else { return .none }
        do {
            return try TrustedProxies(text.split(separator: ",").map(String.init))
        } catch {
            throw ValidationError("\(error)")
        }
    }

    private func resolvedKey(_ option: String?, _ environment: String, _ name: String) throws -> APIKey? {
        guard let text = option ?? EnvironmentSetting.value(environment) else { return nil }
        do throws(APIKey.Unusable) {
            return try APIKey(validating: text)
        } catch {
            throw ValidationError("the \(name) cannot be used: \(error)")
        }
    }

    private func resolvedCORS() throws -> CORSPolicy? {
        guard let text = corsOrigins ?? EnvironmentSetting.value("TABULA_CORS_ORIGINS") else { return nil }
        do {
            return try CORSPolicy(origins: text.split(separator: ",").map(String.init))
        } catch {
            throw ValidationError("\(error)")
        }
    }

    private func duration(_ option: String?, _ variable: String, _ name: String, default fallback: Int) throws -> Int {
        guard let text = option ?? EnvironmentSetting.value(variable) else { return fallback }
        guard let seconds = DurationText.seconds(text), seconds > 0 else {
            throw ValidationError(
                "--\(name) (\(variable)) \"\(text)\" is not a duration of at least 1s; use seconds or a number with s, m, h or d, such as 24h, up to 100 years"
            )
        }
        return seconds
    }

    /// `value` when it is within the option's range (``OptionRange``), else a usage error
    /// that names the option and its range.
    private func bounded(_ value: Int, _ name: String, _ range: ClosedRange<Int>) throws -> Int {
        guard range.contains(value) else {
            throw ValidationError("--\(name) must be between \(range.lowerBound) and \(range.upperBound), not \(value)")
        }
        return value
    }
}

extension Double {
    /// `8` rather than `8.0` for a whole number of seconds in the help.
    var plainText: String {
        rounded() == self && abs(self) < 1e15 ? String(Int(self)) : String(self)
    }
}

/// glibc's `malloc_trim(0)`: returns free heap pages to the system. Looked up at run time
/// because Swift's Glibc module does not import `<malloc.h>`.
private func releaseFreedMemory() {
    typealias MallocTrim = @convention(c) (Int) -> Int32
    guard let symbol = dlsym(nil, "malloc_trim") else { return }  // nil: RTLD_DEFAULT
    _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
}
