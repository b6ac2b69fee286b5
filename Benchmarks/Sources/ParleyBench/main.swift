import AsyncHTTPClient
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Parley
import ParleyAsyncHTTPClient

// Usage: ParleyBench --server http://127.0.0.1:PORT [--quick]
let arguments = CommandLine.arguments
guard let serverIndex = arguments.firstIndex(of: "--server"), serverIndex + 1 < arguments.count,
    let baseURL = URL(string: arguments[serverIndex + 1])
else {
    FileHandle.standardError.write(Data("usage: ParleyBench --server http://127.0.0.1:PORT [--quick]\n".utf8))
    exit(2)
}
let quick = arguments.contains("--quick")
let rounds = quick ? 3 : 7
let scale = quick ? 1 : 4

var configuration = AsyncHTTPClientTransport.defaultConfiguration
configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
let httpClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
let transport = AsyncHTTPClientTransport(client: httpClient)
// The default client configuration, as a user gets it (no overall timeout: the transport's idle timeouts apply).
let parley = Client(baseURL: baseURL, transport: transport)
let parleyChain = Client(baseURL: baseURL, transport: transport, middlewares: (0..<5).map { _ in NoOp() })
let sessionConfiguration = URLSessionConfiguration.ephemeral
sessionConfiguration.httpMaximumConnectionsPerHost = 64
let session = URLSession(configuration: sessionConfiguration)
let objectURL = baseURL.absoluteString + "/bench/object"
let objectURLValue = baseURL.appendingPathComponent("bench/object")

let parleyGet = Side(name: "Parley") { _ = try await parley.send(GetItem()) }
let comparisons: [Comparison] = [
    Comparison(
        name: "get-c1-vs-ahc", parley: parleyGet,
        baseline: Side(name: "AsyncHTTPClient") { _ = try await RawAHC.get(httpClient, url: objectURL) },
        requests: 1_000 * scale, concurrency: 1
    ),
    Comparison(
        name: "get-c64-vs-ahc", parley: parleyGet,
        baseline: Side(name: "AsyncHTTPClient") { _ = try await RawAHC.get(httpClient, url: objectURL) },
        requests: 4_000 * scale, concurrency: 64
    ),
    Comparison(
        name: "get-c64-vs-urlsession", parley: parleyGet,
        baseline: Side(name: "URLSession") { _ = try await RawURLSession.get(session, url: objectURLValue) },
        requests: 1_000 * scale, concurrency: 64
    ),
    Comparison(
        name: "post-c64-vs-ahc",
        parley: Side(name: "Parley") { _ = try await parley.send(PostOrder()) },
        baseline: Side(name: "AsyncHTTPClient") { _ = try await RawAHC.post(httpClient, url: objectURL) },
        requests: 4_000 * scale, concurrency: 64
    ),
    Comparison(
        name: "diagnostic-transport-c64-vs-ahc",
        parley: Side(name: "AsyncHTTPClientTransport.send + collect") {
            let request = HTTPRequest(method: .get, scheme: "http", authority: baseURL.host()! + ":" + String(baseURL.port!), path: "/bench/object")
            let (_, body) = try await transport.send(request, body: nil, baseURL: baseURL, operationID: "x")
            var data = Data()
            for try await chunk in body! { data.append(contentsOf: chunk) }
            _ = try JSONDecoder().decode(Item.self, from: data)
        },
        baseline: Side(name: "AsyncHTTPClient") { _ = try await RawAHC.get(httpClient, url: objectURL) },
        requests: 4_000 * scale, concurrency: 64
    ),
    Comparison(
        name: "middleware5-vs-none",
        parley: Side(name: "Parley + 5 middlewares") { _ = try await parleyChain.send(GetItem()) },
        baseline: Side(name: "Parley") { _ = try await parley.send(GetItem()) },
        requests: 1_000 * scale, concurrency: 1
    ),
]

var table = [
    "| comparison | Parley side | req/s | p50 | p99 | baseline | req/s | p50 | p99 | ratio |",
    "|---|---|---:|---:|---:|---|---:|---:|---:|---:|",
]
var ratios: [String] = []
let only = arguments.firstIndex(of: "--only").map { arguments[$0 + 1] }
for comparison in comparisons where only == nil || comparison.name == only {
    let (a, b) = try await comparison.run(rounds: rounds)
    let ratio = a.medianThroughput / b.medianThroughput
    table.append(
        "| \(comparison.name) (c\(comparison.concurrency)) | \(comparison.parley.name) | \(Int(a.medianThroughput)) | "
            + "\(a.percentile(0.5).microseconds) | \(a.percentile(0.99).microseconds) | \(comparison.baseline.name) | "
            + "\(Int(b.medianThroughput)) | \(b.percentile(0.5).microseconds) | \(b.percentile(0.99).microseconds) | "
            + String(format: "%.3f", ratio) + " |"
    )
    if !comparison.name.hasPrefix("diagnostic-") {
        ratios.append("ratio \(comparison.name) " + String(format: "%.3f", ratio))
    }
    FileHandle.standardError.write(Data("done: \(comparison.name)\n".utf8))
}
for pending in ["rpc-call-vs-ahc", "rpc-batch100-vs-jsoncoder", "upload-1g-vs-curl", "download-1g-vs-curl"] {
    table.append("| \(pending) | — | | | | | | | | n/a (not built yet) |")
    ratios.append("ratio \(pending) n/a")
}
print("Rounds: \(rounds) per side, alternating Parley and baseline after a warm-up; medians of per-round throughput.\n")
print(table.joined(separator: "\n"))
print("")
for line in ratios { print(line) }
print("rss upload-1g n/a")
print("rss download-1g n/a")
func shutDown() async throws {
    try await httpClient.shutdown()
    session.finishTasksAndInvalidate()
}
try await shutDown()
