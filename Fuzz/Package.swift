// swift-tools-version:6.1
import PackageDescription

// libFuzzer targets for Parley's parsers of untrusted input. Each executable defines `LLVMFuzzerTestOneInput` and a
// `main` (SwiftPM names it `<Target>_main`) that hands it to libFuzzer's `LLVMFuzzerRunDriver`, so it only links
// with the fuzzer flags scripts/fuzz passes: `swift build -c release -Xswiftc -sanitize=fuzzer,address
// -Xswiftc -parse-as-library -Xswiftc -no-whole-module-optimization`. The flags apply to every module of the build,
// Parley's included, so its code is instrumented for coverage.
let fuzzTargets: [(name: String, dependencies: [Target.Dependency])] = [
    ("FuzzJSONRPCResponse", [.product(name: "ParleyJSONRPC", package: "parley")]),
    ("FuzzServerSentEvents", []),
    (
        "FuzzPathQuery",
        [
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
        ]
    ),
    ("FuzzHeaders", [.product(name: "HTTPTypes", package: "swift-http-types")]),
    (
        "FuzzCacheEntry",
        [
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
        ]
    ),
    (
        "FuzzCacheHeaders",
        [
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
        ]
    ),
]

let package = Package(
    name: "parley-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "parley", path: ".."),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
    ],
    targets: [
        .target(name: "CLibFuzzer"),
        .target(name: "FuzzSupport", dependencies: ["CLibFuzzer"], swiftSettings: [.enableUpcomingFeature("ExistentialAny")]),
    ]
        + fuzzTargets.map { target in
            .executableTarget(
                name: target.name,
                dependencies: ["FuzzSupport", .product(name: "Parley", package: "parley")] + target.dependencies,
                swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
            )
        }
)
