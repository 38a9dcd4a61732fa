// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "Tabula",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "TabulaCore", targets: ["TabulaCore"]),
        .executable(name: "tabula", targets: ["tabula"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        // Pure row-model core: no Foundation, no I/O, no HTTP. Clients may link it.
        .target(
            name: "TabulaCore",
            // Without Foundation nothing pulls in libm, which Double rounding needs on Linux.
            linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]
        ),
        .executableTarget(
            name: "tabula",
            dependencies: [
                "TabulaCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Seeded generators for tests, benchmarks and fuzzers; not a product.
        .target(name: "TabulaSamples", dependencies: ["TabulaCore"]),
        .executableTarget(
            name: "tabula-core-bench",
            dependencies: ["TabulaCore", "TabulaSamples"],
            path: "Benchmarks/CoreBenchmark"
        ),
        .testTarget(
            name: "TabulaCoreTests",
            dependencies: [
                "TabulaCore",
                "TabulaSamples",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "TabulaCommandTests",
            dependencies: ["tabula"]
        ),
    ]
)
