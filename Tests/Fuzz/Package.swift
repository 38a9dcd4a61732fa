// swift-tools-version:6.1
import PackageDescription

/// libFuzzer targets for Tabula, one executable each. Built only by `Scripts/fuzz`, which
/// adds `-sanitize=fuzzer,address` (and `-enable-testing`, for the service's internal event
/// decoder) to every module of this build; the root package's own builds stay plain.
let package = Package(
    name: "TabulaFuzz",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "Tabula", path: "../..")
    ],
    targets: [
        // libFuzzer's entry point for programs that bring their own `main`.
        .systemLibrary(name: "CLibFuzzer"),
        // Input decoding, invariant checks and the pipeline checks the targets share.
        .target(
            name: "FuzzSupport",
            dependencies: [
                "CLibFuzzer",
                .product(name: "TabulaCore", package: "Tabula"),
                .product(name: "TabulaSamples", package: "Tabula"),
            ]
        ),
        .executableTarget(
            name: "fuzz-event-decoder",
            dependencies: [
                "FuzzSupport",
                .product(name: "TabulaCore", package: "Tabula"),
                .product(name: "TabulaService", package: "Tabula"),
            ],
            swiftSettings: fuzzTargetSettings
        ),
        .executableTarget(
            name: "fuzz-json-patch",
            dependencies: [
                "FuzzSupport",
                .product(name: "TabulaCore", package: "Tabula"),
                .product(name: "TabulaService", package: "Tabula"),
            ],
            swiftSettings: fuzzTargetSettings
        ),
        .executableTarget(
            name: "fuzz-definition-loader",
            dependencies: ["FuzzSupport", .product(name: "TabulaCore", package: "Tabula")],
            swiftSettings: fuzzTargetSettings
        ),
        .executableTarget(
            name: "fuzz-expression-parser",
            dependencies: ["FuzzSupport", .product(name: "TabulaCore", package: "Tabula")],
            swiftSettings: fuzzTargetSettings
        ),
        .executableTarget(
            name: "fuzz-diff-apply",
            dependencies: ["FuzzSupport", .product(name: "TabulaCore", package: "Tabula")],
            swiftSettings: fuzzTargetSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)

/// Each target's `@main` lives beside its `LLVMFuzzerTestOneInput` in a file not named
/// `main.swift`, so the file must be parsed as a library.
var fuzzTargetSettings: [SwiftSetting] { [.unsafeFlags(["-parse-as-library"])] }
