// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "Tabula",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "TabulaModel", targets: ["TabulaModel"]),
        .library(name: "TabulaCore", targets: ["TabulaCore"]),
        .library(name: "TabulaClient", targets: ["TabulaClient", "TabulaClientURLSession"]),
        .library(name: "TabulaService", targets: ["TabulaService"]),
        // Seeded generators and fixture reading, for tests, benchmarks and Tests/Fuzz.
        .library(name: "TabulaSamples", targets: ["TabulaSamples"]),
        .executable(name: "tabula", targets: ["tabula"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // Without its default FoundationURL trait, HTTPTypes does not link Foundation.
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0", traits: []),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        // What an app links: the wire model, its JSON, and change sets that apply to it. No
        // definitions, no expressions, no diff engine, no Foundation.
        .target(
            name: "TabulaModel",
            // Without Foundation nothing pulls in libm, which Double rounding needs on Linux.
            linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]
        ),
        // The engine around the model: definitions, expressions, state, render and diff. No
        // Foundation, no I/O, no HTTP.
        .target(
            name: "TabulaCore",
            dependencies: ["TabulaModel"],
            linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]
        ),
        // A session and screen handles an app keeps current: events sent once, streams
        // followed, copies fetched again when they must be. No Foundation: it talks through
        // a transport, so that `tabula watch` can use libcurl and load it only when it runs.
        .target(name: "TabulaClient", dependencies: ["TabulaModel"]),
        // TabulaClient's transport for apps: URLSession's delegate API, which streams on Apple
        // platforms and in Linux's FoundationNetworking.
        .target(name: "TabulaClientURLSession", dependencies: ["TabulaClient"]),
        // What every layer above the core uses: locks, sharded storage, thread slots, worker
        // threads and queues, the system clock, and the platform's C library (System.swift).
        .systemLibrary(name: "CTabulaPlatform"),
        .target(name: "TabulaPlatform", dependencies: ["CTabulaPlatform"]),
        // libmicrohttpd (Debian libmicrohttpd-dev), with C shims for its variadic calls.
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        // The only target that calls libmicrohttpd: requests and responses in, a router.
        .target(
            name: "TabulaHTTP",
            dependencies: [
                "CMicroHTTPD",
                "TabulaPlatform",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // SQLite (Debian libsqlite3-dev) and a thin wrapper: prepared statements, no ORM.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(name: "TabulaSQLite", dependencies: ["CSQLite"]),
        // libpq's header (Debian libpq-dev) and a thin wrapper: binary parameters, bounded
        // calls. No pkg-config: that would link libpq, which is loaded with dlopen instead.
        .systemLibrary(name: "CLibPQ"),
        .target(name: "TabulaPostgres", dependencies: ["CLibPQ", "TabulaPlatform"]),
        // libcurl's header (Debian libcurl4-openssl-dev), with C trampolines for its variadic
        // calls. No pkg-config: that would link libcurl, which is loaded with dlopen instead.
        .systemLibrary(name: "CCurl"),
        // Outbound HTTP over libcurl: POSTs on one thread, connections kept alive.
        .target(name: "TabulaCurl", dependencies: ["CCurl", "TabulaPlatform"]),
        // CLDR's plural rules and number formats from the system's ICU, loaded with dlopen
        // like libpq: the core's LocaleRules, for string tables.
        .target(name: "TabulaICU", dependencies: ["TabulaCore", "TabulaPlatform"]),
        // Embeds openapi.json and the preview page's assets in TabulaService.
        .plugin(name: "EmbedFile", capability: .buildTool()),
        // Routes, problems, metrics, sessions and stores around the core.
        .target(
            name: "TabulaService",
            dependencies: [
                "TabulaCore",
                "TabulaHTTP",
                "TabulaPlatform",
                "TabulaSQLite",
                "TabulaPostgres",
                "TabulaCurl",
                "TabulaICU",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            // The preview page's and the web client's files, embedded by the plugin.
            exclude: ["Preview/Assets", "Client/Assets"],
            plugins: ["EmbedFile"]
        ),
        // The example backend of the bundled sign-in screen (`tabula example-backend`).
        .target(
            name: "TabulaExampleBackend",
            dependencies: [
                "TabulaCore", "TabulaHTTP", "TabulaPlatform", "TabulaService", .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .executableTarget(
            name: "tabula",
            dependencies: [
                "TabulaClient",
                "TabulaCore",
                "TabulaCurl",
                "TabulaExampleBackend",
                "TabulaICU",
                "TabulaPlatform",
                "TabulaService",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Seeded generators for tests, benchmarks and fuzzers; not a product.
        .target(name: "TabulaSamples", dependencies: ["TabulaCore", "TabulaICU", "TabulaPlatform"]),
        .executableTarget(
            name: "tabula-core-bench",
            dependencies: ["TabulaCore", "TabulaPlatform", "TabulaSamples"],
            path: "Benchmarks/CoreBenchmark"
        ),
        .executableTarget(
            name: "tabula-service-bench",
            dependencies: [
                "TabulaCore", "TabulaHTTP", "TabulaPlatform", "TabulaService", "TabulaSamples",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/ServiceBenchmark"
        ),
        .executableTarget(
            name: "tabula-http-baseline",
            dependencies: [
                "TabulaHTTP",
                "TabulaPlatform",
                "TabulaSamples",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/HTTPBaselineServer"
        ),
        // One program that decodes a screen and applies a change set, built linking TabulaModel
        // and linking TabulaCore, beside a baseline without either: Scripts/bench-link-size.
        .executableTarget(name: "tabula-link-size-baseline", path: "Benchmarks/LinkSize/Baseline"),
        .executableTarget(name: "tabula-link-size-model", dependencies: ["TabulaModel"], path: "Benchmarks/LinkSize/Model"),
        .executableTarget(name: "tabula-link-size-core", dependencies: ["TabulaCore"], path: "Benchmarks/LinkSize/Core"),
        .testTarget(
            name: "TabulaCoreTests",
            dependencies: [
                "TabulaCore",
                "TabulaICU",
                "TabulaSamples",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        // A raw-socket HTTP client and process helpers shared by the test targets.
        .target(
            name: "TabulaTestSupport",
            path: "Tests/TabulaTestSupport"
        ),
        .testTarget(
            name: "TabulaPlatformTests",
            dependencies: ["TabulaPlatform"]
        ),
        .testTarget(
            name: "TabulaHTTPTests",
            dependencies: [
                "TabulaHTTP",
                "TabulaPlatform",
                "TabulaTestSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "TabulaCurlTests",
            dependencies: [
                "TabulaCurl",
                "TabulaHTTP",
                "TabulaPlatform",
                "TabulaTestSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "TabulaServiceTests",
            dependencies: [
                "tabula", "TabulaService", "TabulaExampleBackend", "TabulaHTTP", "TabulaICU", "TabulaPlatform", "TabulaPostgres", "TabulaSQLite",
                "TabulaSamples", "TabulaTestSupport", .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "TabulaClientTests",
            dependencies: ["tabula", "TabulaClient", "TabulaClientURLSession", "TabulaModel", "TabulaTestSupport"]
        ),
        .testTarget(
            name: "TabulaCommandTests",
            dependencies: ["tabula", "TabulaSamples"]
        ),
    ]
)
