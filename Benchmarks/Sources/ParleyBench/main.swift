// swift-format-ignore-file: NeverForceUnwrap

// A benchmark harness: a missing value is a broken setup, and stopping there is what it should do.
import AsyncHTTPClient
import Foundation
import NIOCore
import Parley
import ParleyAsyncHTTPClient
import ParleyJSONRPC
import ParleyJSONRPCWebSocket

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Usage: ParleyBench --server http://127.0.0.1:PORT [--rpc-ws ws://127.0.0.1:PORT/rpc/ws] [--quick] [--only NAME,…]
// (`--only` takes comparison names, `transfers` for the four transfer comparisons, `rss` for the memory lines and
// `diagnostics` for the bare-URLSession transfer rows, which run only when named.)
let arguments = CommandLine.arguments
// The child process of an `rss …` line: one transfer and nothing else (see RSSTransfer.swift).
if arguments.count > 1, arguments[1] == "rss-transfer" {
    try await RSSTransfer.child(arguments)
    exit(0)
}
guard let serverIndex = arguments.firstIndex(of: "--server"), serverIndex + 1 < arguments.count,
    let baseURL = URL(string: arguments[serverIndex + 1])
else {
    FileHandle.standardError.write(
        Data(
            "usage: ParleyBench --server http://127.0.0.1:PORT [--rpc-ws ws://127.0.0.1:PORT/rpc/ws] [--quick] [--only NAME,…]\n"
                .utf8
        )
    )
    exit(2)
}
let quick = arguments.contains("--quick")
// Many short rounds, alternating, so that slow drifts of a shared machine hit both sides alike.
let rounds = quick ? 5 : 21
let scale = quick ? 1 : 2

// `PARLEY_BENCH_LOOPS=N` sets the number of event loops of NIO's singleton group (default: one per core the cgroup
// allows, which taskset does not restrict), for probing what a caller on another loop than its connection costs.
if let loops = ProcessInfo.processInfo.environment["PARLEY_BENCH_LOOPS"].flatMap(Int.init) {
    NIOSingletons.groupLoopCountSuggestion = loops
}
var configuration = AsyncHTTPClientTransport.defaultConfiguration
configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
let httpClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
let transport = AsyncHTTPClientTransport(client: httpClient)
// The baselines' own client, of the same configuration: neither side inherits the other's pool (its connections, their
// event loops, a connection still closing).
let baselineClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
// The default client configuration, as a user gets it (no overall timeout: the transport's idle timeouts apply).
let parley = Client(baseURL: baseURL, transport: transport)
let parleyChain = Client(baseURL: baseURL, transport: transport, middlewares: (0..<5).map { _ in NoOp() })
let sessionConfiguration = URLSessionConfiguration.ephemeral
sessionConfiguration.httpMaximumConnectionsPerHost = 64
let session = URLSession(configuration: sessionConfiguration)
let objectURL = baseURL.absoluteString + "/bench/object"
let objectURLValue = baseURL.appendingPathComponent("bench/object")

let benchRequest = HTTPRequest(
    method: .get,
    scheme: "http",
    authority: baseURL.host()! + ":" + String(baseURL.port!),
    path: "/bench/object"
)
let rpcClient = JSONRPCClient(http: parley, path: "/rpc")
let rpcURL = baseURL.absoluteString + "/rpc"
let parleyGet = Side(name: "Parley") { _ = try await parley.send(GetItem()) }
// JSON-RPC over WebSocket: the demo server serves it on its own port (`--rpc-ws`, printed by `parley demo --serve`).
// Each side opens its one connection here, once; the rounds measure calls on it, not connecting.
let webSocketURL = arguments.firstIndex(of: "--rpc-ws").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
var webSocketChannel: JSONRPCWebSocketChannel?
var rawWebSocket: RawWebSocketRPC?
if let webSocketURL {
    webSocketChannel = try await JSONRPCWebSocketChannel.connect(to: webSocketURL)
    rawWebSocket = try await RawWebSocketRPC.connect(to: webSocketURL)
}
var webSocketComparisons: [Comparison] = []
if let webSocketChannel, let rawWebSocket {
    let rpc = JSONRPCClient(channel: webSocketChannel)
    webSocketComparisons.append(
        Comparison(
            name: "rpc-ws1000-vs-wsclient",
            parley: Side(name: "Parley JSONRPCWebSocketChannel, 1000 calls at once", calls: EchoBurst.size) {
                try await EchoBurst.run { params in try await rpc.call(EchoCall(params: params)) }
            },
            baseline: Side(name: "WSClient by hand (ids → continuations, JSONDecoder)", calls: EchoBurst.size) {
                try await EchoBurst.run { params in try await rawWebSocket.echo(params) }
            },
            // Bursts per round (each ~0.2 s on the reference machine): 3 quick, 4 full.
            requests: 2 + scale,
            concurrency: 1
        )
    )
}
let comparisons: [Comparison] =
    [
        Comparison(
            name: "get-c1-vs-ahc",
            parley: parleyGet,
            baseline: Side(name: "AsyncHTTPClient") { _ = try await RawAHC.get(baselineClient, url: objectURL) },
            requests: 1_000 * scale,
            concurrency: 1
        ),
        Comparison(
            name: "get-c64-vs-ahc",
            parley: parleyGet,
            baseline: Side(name: "AsyncHTTPClient") { _ = try await RawAHC.get(baselineClient, url: objectURL) },
            requests: 4_000 * scale,
            concurrency: 64
        ),
        Comparison(
            name: "get-c64-vs-urlsession",
            parley: parleyGet,
            baseline: Side(name: "URLSession") { _ = try await RawURLSession.get(session, url: objectURLValue) },
            requests: 1_000 * scale,
            concurrency: 64
        ),
        Comparison(
            name: "post-c64-vs-ahc",
            parley: Side(name: "Parley") { _ = try await parley.send(PostOrder()) },
            baseline: Side(name: "AsyncHTTPClient") { _ = try await RawAHC.post(baselineClient, url: objectURL) },
            requests: 4_000 * scale,
            concurrency: 64
        ),
        Comparison(
            name: "diagnostic-transport-c64-vs-ahc",
            parley: Side(name: "AsyncHTTPClientTransport.send + collect") {
                let (_, body) = try await transport.send(benchRequest, body: nil, baseURL: baseURL, operationID: "x")
                var data = Data()
                for try await chunk in body! { data.append(contentsOf: chunk) }
                _ = try JSONDecoder().decode(Item.self, from: data)
            },
            baseline: Side(name: "AsyncHTTPClient") { _ = try await RawAHC.get(baselineClient, url: objectURL) },
            requests: 4_000 * scale,
            concurrency: 64
        ),
        Comparison(
            name: "rpc-call-vs-ahc",
            parley: Side(name: "Parley JSON-RPC call") { _ = try await rpcClient.call(SumCall(params: [1, 2, 4])) },
            baseline: Side(name: "AsyncHTTPClient POST + Codable") {
                _ = try await RawRPC.call(baselineClient, url: rpcURL, id: Int.random(in: 1...1_000_000))
            },
            requests: 4_000 * scale,
            concurrency: 64
        ),
        Comparison(
            name: "rpc-batch100-vs-jsoncoder",
            parley: Side(name: "Parley batch of 100 (encode + match + decode)") { _ = try await Batch100.parley() },
            baseline: Side(name: "JSONEncoder + JSONDecoder") { _ = try Batch100.bare() },
            requests: 500 * scale,
            concurrency: 1
        ),
        Comparison(
            name: "middleware5-vs-none",
            parley: Side(name: "Parley + 5 middlewares") { _ = try await parleyChain.send(GetItem()) },
            baseline: Side(name: "Parley") { _ = try await parley.send(GetItem()) },
            requests: 1_000 * scale,
            concurrency: 1
        ),
    ] + webSocketComparisons

/// Variants of the raw AsyncHTTPClient GET, for `--profile` only: each adds one step of the transport seam.
let rawGet = Side(name: "AsyncHTTPClient") { _ = try await RawAHC.get(baselineClient, url: objectURL) }
let probes: [Comparison] =
    [
        Side(name: "probe-deadline") { _ = try await Probes.getDistantDeadline(httpClient, url: objectURL) },
        Side(name: "probe-arrayslice") { _ = try await Probes.getArraySlices(httpClient, url: objectURL) },
        Side(name: "probe-delegate") { _ = try await Probes.getDelegate(httpClient, url: objectURL) },
        Side(name: "probe-httpbody") { _ = try await Probes.getHTTPBody(httpClient, url: objectURL) },
        Side(name: "probe-inline-plain") {
            _ = try await Probes.getInlineTransport(httpClient, request: benchRequest, wrapBody: false, convertHeaders: false)
        },
        Side(name: "probe-inline-headers") {
            _ = try await Probes.getInlineTransport(httpClient, request: benchRequest, wrapBody: false, convertHeaders: true)
        },
        Side(name: "probe-inline-httpbody") {
            _ = try await Probes.getInlineTransport(httpClient, request: benchRequest, wrapBody: true, convertHeaders: false)
        },
        Side(name: "probe-inline-all") {
            _ = try await Probes.getInlineTransport(httpClient, request: benchRequest, wrapBody: true, convertHeaders: true)
        },
        Side(name: "probe-copy-eager") {
            let (_, body) = try await Probes.transportCopy(httpClient, benchRequest, eager: true)
            var data = Data()
            for try await chunk in body! { data.append(contentsOf: chunk) }
            _ = try JSONDecoder().decode(Item.self, from: data)
        },
        Side(name: "probe-copy-stream") {
            let (_, body) = try await Probes.transportCopy(httpClient, benchRequest, eager: false)
            var data = Data()
            for try await chunk in body! { data.append(contentsOf: chunk) }
            _ = try JSONDecoder().decode(Item.self, from: data)
        },
        Side(name: "probe-parley-on-loop") {
            try await withTaskExecutorPreference(LoopExecutor(httpClient.eventLoopGroup.any())) {
                _ = try await parley.send(GetItem())
            }
        },
        Side(name: "probe-ahc-on-loop") {
            try await withTaskExecutorPreference(LoopExecutor(httpClient.eventLoopGroup.any())) {
                _ = try await RawAHC.get(httpClient, url: objectURL)
            }
        },
        Side(name: "probe-transport-drain") {
            let (_, body) = try await transport.send(benchRequest, body: nil, baseURL: baseURL, operationID: "x")
            for try await _ in body! {}
        },
    ].map { Comparison(name: $0.name, parley: $0, baseline: rawGet, requests: 4_000 * scale, concurrency: 64) } + [
        Comparison(
            name: "probe-delegate-post",
            parley: Side(name: "probe-delegate-post") { _ = try await Probes.postDelegate(httpClient, url: objectURL) },
            baseline: Side(name: "AsyncHTTPClient") { _ = try await RawAHC.post(baselineClient, url: objectURL) },
            requests: 4_000 * scale,
            concurrency: 64
        )
    ]

/// The on-loop probes at concurrency 1, against raw AsyncHTTPClient at concurrency 1.
let probesC1: [Comparison] = probes.filter { $0.name.hasSuffix("-on-loop") }.map {
    Comparison(name: $0.name + "-c1", parley: $0.parley, baseline: rawGet, requests: 1_000 * scale, concurrency: 1)
}

let canned = Client(baseURL: baseURL, transport: CannedTransport())
let cannedProbe = Comparison(
    name: "probe-canned",
    parley: Side(name: "canned") { _ = try await canned.send(GetItem()) },
    baseline: Side(name: "decode") { _ = try JSONDecoder().decode(Item.self, from: CannedTransport.object) },
    requests: 100_000,
    concurrency: 1
)
/// The same without the per-request head deadline (a timer task per request on a transport that cannot bound the head
/// itself) and without the body deadline.
let cannedBare = Client(
    baseURL: baseURL,
    transport: CannedTransport(),
    configuration: Client.Configuration(responseHeadTimeout: nil, responseBodyTimeout: nil)
)
let cannedBareProbe = Comparison(
    name: "probe-canned-no-deadlines",
    parley: Side(name: "canned, no head or body deadline") { _ = try await cannedBare.send(GetItem()) },
    baseline: Side(name: "decode") { _ = try JSONDecoder().decode(Item.self, from: CannedTransport.object) },
    requests: 100_000,
    concurrency: 1
)

/// Without deadlines, decompression or redirects: what the rest of the pipeline costs.
let cannedMinimal = Client(
    baseURL: baseURL,
    transport: CannedTransport(),
    configuration: Client.Configuration(
        redirects: .none,
        decompression: nil,
        responseHeadTimeout: nil,
        responseBodyTimeout: nil
    )
)
let cannedMinimalProbe = Comparison(
    name: "probe-canned-minimal",
    parley: Side(name: "canned, no deadlines, decompression or redirects") { _ = try await cannedMinimal.send(GetItem()) },
    baseline: Side(name: "decode") { _ = try JSONDecoder().decode(Item.self, from: CannedTransport.object) },
    requests: 100_000,
    concurrency: 1
)

// Profiling mode: `--profile NAME --side parley|baseline [--requests N]` runs one side only, once, so that
// `perf record` or `valgrind --tool=callgrind` sees just that side's work.
if let profileIndex = arguments.firstIndex(of: "--profile"), profileIndex + 1 < arguments.count {
    let name = arguments[profileIndex + 1]
    let cannedProbes = [cannedProbe, cannedBareProbe, cannedMinimalProbe]
    guard let comparison = (comparisons + probes + probesC1 + cannedProbes).first(where: { $0.name == name }) else {
        throw BenchError.usage("no comparison named \(name)")
    }
    let sideName = arguments.firstIndex(of: "--side").map { arguments[$0 + 1] } ?? "parley"
    let side = sideName == "baseline" ? comparison.baseline : comparison.parley
    // `--requests` counts calls: a side whose run is a burst of calls runs count / calls bursts.
    let count =
        arguments.firstIndex(of: "--requests").flatMap { Int(arguments[$0 + 1]) }.map { max(1, $0 / side.calls) }
        ?? comparison.requests
    let measured = try await measure(side, requests: count, concurrency: comparison.concurrency)
    print(
        "profile \(name) \(side.name): \(Int(measured.throughput)) \(side.calls > 1 ? "calls" : "req")/s, "
            + "CPU \(measured.cpuPerCall.microseconds) per call, p50 \(Figures(latencies: measured.latencies).percentile(0.5).microseconds)"
    )
    try await shutDown()
    exit(0)
}

// Several sides alternately: `--ab NAME:SIDE,NAME:SIDE,… [--rounds N] [--requests N]`; prints each side's
// median throughput, for comparing variants during profiling.
if let abIndex = arguments.firstIndex(of: "--ab"), abIndex + 1 < arguments.count {
    let all = comparisons + probes + probesC1 + [cannedProbe, cannedBareProbe, cannedMinimalProbe]
    let specs = arguments[abIndex + 1].split(separator: ",").map(String.init)
    let abRounds = arguments.firstIndex(of: "--rounds").flatMap { Int(arguments[$0 + 1]) } ?? 5
    let count = arguments.firstIndex(of: "--requests").flatMap { Int(arguments[$0 + 1]) } ?? 8_000
    var sides: [(String, Side, Int)] = []
    for spec in specs {
        let parts = spec.split(separator: ":").map(String.init)
        guard let comparison = all.first(where: { $0.name == parts[0] }) else { throw BenchError.usage("no comparison \(spec)") }
        sides.append(
            (spec, parts.count > 1 && parts[1] == "baseline" ? comparison.baseline : comparison.parley, comparison.concurrency)
        )
    }
    var results = Array(repeating: [Double](), count: sides.count)
    // `--requests` counts calls: a side whose run is a burst of calls runs count / calls bursts.
    for (_, side, concurrency) in sides {
        _ = try await measure(side, requests: max(1, count / 4 / side.calls), concurrency: concurrency)
    }
    for _ in 0..<abRounds {
        for (index, (_, side, concurrency)) in sides.enumerated() {
            results[index].append(
                try await measure(side, requests: max(1, count / side.calls), concurrency: concurrency).throughput
            )
        }
    }
    for (index, (spec, _, _)) in sides.enumerated() {
        let sorted = results[index].sorted()
        print(
            "\(spec): median \(Int(sorted[sorted.count / 2])) req/s  (\(sorted.map { String(Int($0)) }.joined(separator: " ")))"
        )
    }
    try await shutDown()
    exit(0)
}

var table = [
    "| comparison | Parley side | req/s | CPU/req | p50 | p99 | baseline | req/s | CPU/req | p50 | p99 | ratio (p25–p75 of rounds) |",
    "|---|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|",
]
var ratios: [String] = []
let only = arguments.firstIndex(of: "--only").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
    .map { Set($0.split(separator: ",").map(String.init)) }
func selected(_ name: String, group: String? = nil) -> Bool {
    guard let only else { return true }
    return only.contains(name) || group.map { only.contains($0) } == true
}
for comparison in comparisons where selected(comparison.name) {
    let (a, b, roundRatios) = try await comparison.run(rounds: rounds)
    let spread = RatioSpread(roundRatios)
    // A side whose run is a burst of calls: throughput in calls/s, latency of the whole burst.
    let calls = comparison.parley.calls
    let rate = calls > 1 ? " calls/s" : ""
    let per = calls > 1 ? " per \(calls)" : ""
    table.append(
        "| \(comparison.name) (c\(comparison.concurrency * calls)) | \(comparison.parley.name) | \(Int(a.medianThroughput))\(rate) | "
            + "\(a.medianCPU.microseconds) | \(a.percentile(0.5).microseconds)\(per) | \(a.percentile(0.99).microseconds)\(per) | "
            + "\(comparison.baseline.name) | \(Int(b.medianThroughput))\(rate) | \(b.medianCPU.microseconds) | "
            + "\(b.percentile(0.5).microseconds)\(per) | \(b.percentile(0.99).microseconds)\(per) | \(spread.text) |"
    )
    if !comparison.name.hasPrefix("diagnostic-") {
        ratios.append("ratio \(comparison.name) " + String(format: "%.3f", spread.median))
        ratios.append(String(format: "spread \(comparison.name) %.3f %.3f", spread.low, spread.high))
        ratios.append("cpu \(comparison.name) \(a.medianCPU.microseconds) \(b.medianCPU.microseconds)")
    }
    FileHandle.standardError.write(Data("done: \(comparison.name)\n".utf8))
}
if webSocketURL == nil, selected("rpc-ws1000-vs-wsclient") {
    table.append("| rpc-ws1000-vs-wsclient | — | | | | | | | | n/a (no --rpc-ws URL) |")
    ratios.append("ratio rpc-ws1000-vs-wsclient n/a")
}
var notes: [String] = []
if comparisons.contains(where: { selected($0.name) }) {
    notes.append(
        "Rounds: \(rounds) per side, Parley and baseline back to back (which goes first alternates) after a warm-up, "
            + "each side on its own HTTPClient. req/s: the median of the rounds; ratio: the median of the rounds' own "
            + "ratios, with their 25th to 75th percentile (how far to trust it); CPU/req: the client process's CPU time "
            + "(user and system, every thread) per request, the median of the rounds."
    )
}
let transferRows = try await TransferRuns.run(baseURL: baseURL, client: parley, quick: quick, only: only)
notes += transferRows.notes
table += transferRows.table
ratios += transferRows.ratios
print(notes.joined(separator: "\n") + "\n")
print(table.joined(separator: "\n"))
print("")
for line in ratios { print(line) }

func shutDown() async throws {
    await webSocketChannel?.close()
    await rawWebSocket?.close()
    try await httpClient.shutdown()
    try await baselineClient.shutdown()
    session.finishTasksAndInvalidate()
}
try await shutDown()
