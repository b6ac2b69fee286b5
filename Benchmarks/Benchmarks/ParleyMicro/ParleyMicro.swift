// swift-format-ignore-file: NeverForceUnwrap
// A benchmark harness: a missing value is a broken setup, and stopping there is what it should do.
import AsyncHTTPClient
import Benchmark
import Foundation
import NIOCore
import Parley
import ParleyAsyncHTTPClient

/// The ~200-byte object the demo server's `/bench/object` returns, as the server sends it.
let objectJSON = Data(
    #"{"active":true,"createdAt":"2026-01-01T00:00:00Z","email":"ada@example.com","id":42,"name":"Ada Lovelace","note":"a benchmark object of about two hundred bytes","score":98.5,"tags":["admin","beta","ops"]}"#
        .utf8
)

struct Item: Codable, Sendable {
    let id: Int
    let name: String
    let email: String
    let active: Bool
    let score: Double
    let tags: [String]
    let createdAt: String
    let note: String
}

struct GetItem: Endpoint {
    typealias Response = Item
    var path: Path { "/bench/object" }
}

/// A transport that answers every request at once with the object, built once: what is left is Parley's own work
/// (a body of bytes can be read any number of times).
struct CannedTransport: ClientTransport {
    let head = HTTPResponse(
        status: .ok,
        headerFields: [.contentType: "application/json", .contentLength: String(objectJSON.count)]
    )
    let body = HTTPBody(objectJSON)

    func send(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String
    ) async throws -> (HTTPResponse, HTTPBody?) {
        (head, self.body)
    }
}

let benchmarks: @Sendable () -> Void = {
    let metrics: [BenchmarkMetric] = [.wallClock, .mallocCountTotal]
    // `PARLEY_BENCH_QUICK` (scripts/bench --quick) shortens every benchmark to one second.
    let seconds = ProcessInfo.processInfo.environment["PARLEY_BENCH_QUICK"] == nil ? 3 : 1
    let configuration = Benchmark.Configuration(metrics: metrics, maxDuration: .seconds(seconds), maxIterations: 100_000)
    // The time of a call, measured apart: counting allocations hooks every one of them, which slows the side that
    // allocates more, so that the time beside an allocation count says more about the counter than the call.
    let timed = Benchmark.Configuration(metrics: [.wallClock], maxDuration: .seconds(seconds), maxIterations: 100_000)

    // Parley's own work per call (request building, chain, validation, decoding) against the decode alone.
    let canned = Client(baseURL: URL(string: "http://127.0.0.1:1")!, transport: CannedTransport())
    Benchmark("client-overhead: Parley send over a canned transport", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try await canned.send(GetItem())) }
    }
    Benchmark("client-overhead: JSONDecoder alone (baseline)", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try JSONDecoder().decode(Item.self, from: objectJSON)) }
    }
    Benchmark("client-overhead time: Parley send over a canned transport", configuration: timed) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try await canned.send(GetItem())) }
    }
    Benchmark("client-overhead time: JSONDecoder alone (baseline)", configuration: timed) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try JSONDecoder().decode(Item.self, from: objectJSON)) }
    }

    // End to end, for allocations per request: needs `PARLEY_BENCH_SERVER` (scripts/bench sets it).
    guard let server = ProcessInfo.processInfo.environment["PARLEY_BENCH_SERVER"], let baseURL = URL(string: server) else {
        return
    }
    let e2e = Benchmark.Configuration(metrics: metrics, maxDuration: .seconds(seconds), maxIterations: 20_000)
    let parley = Client(baseURL: baseURL, transport: AsyncHTTPClientTransport.shared)
    let url = server + "/bench/object"
    Benchmark("get: Parley send (end to end)", configuration: e2e) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try await parley.send(GetItem())) }
    }
    Benchmark("get: AsyncHTTPClient execute + JSONDecoder (baseline)", configuration: e2e) { benchmark in
        for _ in benchmark.scaledIterations {
            let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
            let body = try await response.body.collect(upTo: 32 * 1024 * 1024)
            blackHole(try JSONDecoder().decode(Item.self, from: Data(body.readableBytesView)))
        }
    }
}
