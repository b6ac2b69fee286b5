// swift-tools-version:6.1
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// A product of another package, for the test targets' lists below.
func external(_ name: String, _ package: String) -> Target.Dependency { .product(name: name, package: package) }

let package = Package(
    name: "parley",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "Parley", targets: ["Parley"]),
        .library(name: "ParleyAsyncHTTPClient", targets: ["ParleyAsyncHTTPClient"]),
        .library(name: "ParleyURLSession", targets: ["ParleyURLSession"]),
        .library(name: "ParleyTesting", targets: ["ParleyTesting"]),
        .library(name: "ParleyJSONRPC", targets: ["ParleyJSONRPC"]),
        .library(name: "ParleyJSONRPCStdio", targets: ["ParleyJSONRPCStdio"]),
        .library(name: "ParleyJSONRPCWebSocket", targets: ["ParleyJSONRPCWebSocket"]),
        .executable(name: "parley", targets: ["parley"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket.git", from: "1.6.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/vapor/multipart-kit.git", from: "4.7.1"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client.git", from: "1.5.0"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CParleySystem",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .target(
            name: "Parley",
            dependencies: [
                "CParleySystem",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Instrumentation", package: "swift-distributed-tracing"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "ParleyAsyncHTTPClient",
            dependencies: [
                "Parley",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "ParleyURLSession",
            dependencies: ["Parley"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "ParleyJSONRPC",
            dependencies: [
                "Parley",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: swiftSettings
        ),
        // JSON-RPC over byte streams: child processes, pipes, framing, `serve`. Apart from ParleyJSONRPC, which then
        // needs no full Foundation (FoundationEssentials on Linux) for JSON-RPC over HTTP and WebSocket.
        .target(
            name: "ParleyJSONRPCStdio",
            dependencies: [
                "Parley",
                "ParleyJSONRPC",
                "CParleySystem",
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "ParleyJSONRPCWebSocket",
            dependencies: [
                "Parley",
                "ParleyJSONRPC",
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "ParleyTesting",
            dependencies: ["Parley"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "ParleyDemoServer",
            dependencies: [
                "Parley",
                "ParleyJSONRPC",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "MultipartKit", package: "multipart-kit"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "parley",
            dependencies: [
                "Parley",
                "ParleyAsyncHTTPClient",
                "ParleyURLSession",
                "ParleyJSONRPC",
                "ParleyJSONRPCStdio",
                "ParleyJSONRPCWebSocket",
                "ParleyDemoServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: swiftSettings
        ),
        // The README's Quick start, line for line (scripts/check-readme): the program a reader pastes as the
        // main.swift of a new package and runs against `swift run parley demo --serve --port 8080`. Built, not a
        // product; run by Tests/ParleyCLITests/QuickStartTests.swift.
        .executableTarget(
            name: "QuickStart",
            dependencies: ["Parley", "ParleyAsyncHTTPClient"],
            path: "Examples/QuickStart",
            swiftSettings: swiftSettings
        ),
        // What the test targets share: the demo and fault servers' clients, the fault servers themselves (test tooling,
        // not part of the `parley` executable), endpoints, transports under test, peers. Internal declarations,
        // reached by `@testable import` (debug builds compile every target for testing).
        .target(
            name: "ParleyTestSupport",
            dependencies: [
                "Parley",
                "ParleyAsyncHTTPClient",
                "ParleyURLSession",
                "ParleyTesting",
                "ParleyJSONRPC",
                "ParleyJSONRPCStdio",
                "ParleyDemoServer",
                external("AsyncHTTPClient", "async-http-client"),
                external("HTTPTypes", "swift-http-types"),
                external("OpenAPIRuntime", "swift-openapi-runtime"),
                external("Crypto", "swift-crypto"),
                external("Logging", "swift-log"),
                external("Tracing", "swift-distributed-tracing"),
                external("InMemoryTracing", "swift-distributed-tracing"),
                external("Instrumentation", "swift-distributed-tracing"),
                external("Hummingbird", "hummingbird"),
                external("ServiceLifecycle", "swift-service-lifecycle"),
                external("NIOConcurrencyHelpers", "swift-nio"),
                external("NIOCore", "swift-nio"),
                external("NIOPosix", "swift-nio"),
            ],
            path: "Tests/ParleyTestSupport",
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        // `parley-probe`: one GET in a child process, for the tests that watch a dependency's crash. Test tooling.
        .executableTarget(
            name: "parley-probe",
            dependencies: [
                "Parley",
                "ParleyURLSession",
                external("AsyncHTTPClient", "async-http-client"),
                external("NIOCore", "swift-nio"),
                external("NIOHTTP1", "swift-nio"),
            ],
            path: "Tests/ParleyProbes",
            swiftSettings: swiftSettings
        ),
        // One test target per module group, each with what it tests and imports. Test folders mirror Sources/: a test
        // file sits in the folder of its subject's source folder (ParleyCoreTests mirrors Sources/Parley,
        // ParleyJSONRPCTests Sources/ParleyJSONRPC, ParleyTestingTests Sources/ParleyTesting), and a test of another
        // module of the group in a folder named after that module (ParleyJSONRPCTests/ParleyJSONRPCStdio,
        // ParleyTransportTests/ParleyURLSession); a test of both transports sits at the root of ParleyTransportTests.
        // The one exception: the suites against independent peers (httpbin, nginx, proxies, the JSON-RPC, MCP and
        // language servers), whose subject is cross-cutting, stay together in a Peers/ folder of their target.
        .testTarget(
            name: "ParleyCoreTests",
            dependencies: [
                "ParleyTestSupport",
                "Parley",
                "ParleyAsyncHTTPClient",
                "ParleyTesting",
                "ParleyJSONRPC",
                "ParleyDemoServer",
                external("HTTPTypes", "swift-http-types"),
                external("OpenAPIRuntime", "swift-openapi-runtime"),
                external("Logging", "swift-log"),
                external("Metrics", "swift-metrics"),
                external("MetricsTestKit", "swift-metrics"),
                external("Tracing", "swift-distributed-tracing"),
                external("InMemoryTracing", "swift-distributed-tracing"),
                external("Hummingbird", "hummingbird"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        .testTarget(
            name: "ParleyJSONRPCTests",
            dependencies: [
                "ParleyTestSupport",
                "Parley",
                "ParleyAsyncHTTPClient",
                "ParleyJSONRPC",
                "ParleyJSONRPCStdio",
                "ParleyJSONRPCWebSocket",
                "ParleyDemoServer",
                external("HTTPTypes", "swift-http-types"),
                external("OpenAPIRuntime", "swift-openapi-runtime"),
                external("Logging", "swift-log"),
                external("Tracing", "swift-distributed-tracing"),
                external("InMemoryTracing", "swift-distributed-tracing"),
                external("Hummingbird", "hummingbird"),
                external("WSClient", "swift-websocket"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        .testTarget(
            name: "ParleyTransportTests",
            dependencies: [
                "ParleyTestSupport",
                "Parley",
                "ParleyAsyncHTTPClient",
                "ParleyURLSession",
                "ParleyDemoServer",
                external("AsyncHTTPClient", "async-http-client"),
                external("HTTPTypes", "swift-http-types"),
                external("OpenAPIRuntime", "swift-openapi-runtime"),
                external("OpenAPIAsyncHTTPClient", "swift-openapi-async-http-client"),
                external("Crypto", "swift-crypto"),
                external("Logging", "swift-log"),
                external("MetricsTestKit", "swift-metrics"),
                external("Hummingbird", "hummingbird"),
                external("ServiceLifecycle", "swift-service-lifecycle"),
                external("NIOCore", "swift-nio"),
                external("NIOPosix", "swift-nio"),
                external("NIOSSL", "swift-nio-ssl"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        .testTarget(
            name: "ParleyTestingTests",
            dependencies: [
                "ParleyTestSupport",
                "Parley",
                "ParleyTesting",
                "ParleyDemoServer",
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        .testTarget(
            name: "ParleyCLITests",
            dependencies: [
                "ParleyTestSupport",
                "Parley",
                "ParleyJSONRPC",
                "ParleyJSONRPCStdio",
                "ParleyDemoServer",
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        // The DocC articles' Swift blocks, line for line (scripts/check-docs), run against the demo server. Only what a
        // reader has: Parley's products, the demo server (`swift run parley demo --serve`), and the libraries the
        // samples import; not ParleyTestSupport, so that no test-only name can leak into a sample.
        .testTarget(
            name: "ParleyDocSamplesTests",
            dependencies: [
                "Parley",
                "ParleyAsyncHTTPClient",
                "ParleyURLSession",
                "ParleyTesting",
                "ParleyJSONRPC",
                "ParleyJSONRPCStdio",
                "ParleyJSONRPCWebSocket",
                "ParleyDemoServer",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
    ]
)
