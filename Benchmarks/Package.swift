// swift-tools-version:6.1
import PackageDescription

// Side-by-side benchmarks: Parley against the raw AsyncHTTPClient, URLSession and WSClient code a user would
// otherwise write, on the same server, alternating A B A B in one run. Release builds only: scripts/bench.
let package = Package(
    name: "parley-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "parley", path: ".."),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket.git", from: "1.6.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "ParleyBench",
            dependencies: [
                .product(name: "Parley", package: "parley"),
                .product(name: "ParleyAsyncHTTPClient", package: "parley"),
                .product(name: "ParleyURLSession", package: "parley"),
                .product(name: "ParleyJSONRPC", package: "parley"),
                .product(name: "ParleyJSONRPCWebSocket", package: "parley"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        // Micro-benchmarks (package-benchmark): Parley's own per-request work without a network, and
        // allocations per request end to end. `swift package --disable-sandbox benchmark` (scripts/bench runs it).
        .executableTarget(
            name: "ParleyMicro",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Parley", package: "parley"),
                .product(name: "ParleyAsyncHTTPClient", package: "parley"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Benchmarks/ParleyMicro",
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
