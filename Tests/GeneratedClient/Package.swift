// swift-tools-version:6.1
import PackageDescription

/// A client generated from Tabula's `openapi.json` by Apple's swift-openapi-generator, and a
/// test that drives every operation of the document against a live `tabula serve` with it.
/// Built only by `Scripts/generated-client-check`; the root package does not depend on it.
let package = Package(
    name: "TabulaGeneratedClient",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator", from: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ],
    targets: [
        // The generator's build plugin reads `openapi.json` (a link to the repository's
        // document) and `openapi-generator-config.yaml` in the target, and generates the
        // types and the client into the build folder.
        .testTarget(
            name: "GeneratedClientTests",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        )
    ],
    swiftLanguageModes: [.v6]
)
