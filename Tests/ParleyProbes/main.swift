// `parley-probe KIND URL`: one GET in a process of its own, for the tests that watch a dependency's crash (the child
// dies by a signal; the day upstream fixes it, it exits and the test says so). Test tooling: not part of the `parley`
// command line.
//
// - `unprotected-ahc URL`: a plain `HTTPClient`, without `AsyncHTTPClientTransport.protected(_:)` (AsyncHTTPClient's
//   crash on a status code below 100, docs/upstream/async-http-client-interim-status-crash.md).
// - `urlsession URL`: Parley's `URLSessionTransport` (FoundationNetworking's crash on a response head cut short, fixed
//   upstream by swift-corelibs-foundation #5286, in 6.4).
//
// Prints `status N`, or `error: …` and exits with 1.
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Parley
import ParleyURLSession

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The URL's path and query items, as an endpoint.
struct Probe: Endpoint {
    typealias Response = Data
    let path: Path
    let query: Query
}

/// One GET with an unprotected AsyncHTTPClient: its status.
func unprotectedAsyncHTTPClient(_ url: String) async throws -> Int {
    let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: HTTPClient.Configuration())
    do {
        let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
        _ = try await response.body.collect(upTo: 1 << 20)
        try? await client.shutdown()
        return Int(response.status.code)
    } catch {
        try? await client.shutdown()
        throw error
    }
}

/// One GET through Parley's URLSessionTransport: its status.
func urlSessionTransport(_ url: String) async throws -> Int {
    guard let components = URLComponents(string: url), let scheme = components.scheme, let host = components.host,
        let base = URL(string: "\(scheme)://\(host)\(components.port.map { ":\($0)" } ?? "")")
    else { throw ProbeError(message: "not an absolute URL: \(url)") }
    let probe = Probe(
        path: Path(percentEncoded: components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath),
        query: Query((components.queryItems ?? []).map { QueryItem($0.name, $0.value) })
    )
    let client = Client(baseURL: base, transport: URLSessionTransport(), configuration: .init(timeout: .seconds(20)))
    do {
        let (_, response) = try await client.response(for: probe)
        try? await client.shutdown()
        return response.status.code
    } catch {
        try? await client.shutdown()
        throw error
    }
}

struct ProbeError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

let arguments = CommandLine.arguments
do {
    guard arguments.count == 3 else { throw ProbeError(message: "usage: parley-probe unprotected-ahc|urlsession URL") }
    let status: Int
    switch arguments[1] {
    case "unprotected-ahc": status = try await unprotectedAsyncHTTPClient(arguments[2])
    case "urlsession": status = try await urlSessionTransport(arguments[2])
    default: throw ProbeError(message: "unknown probe \(arguments[1])")
    }
    print("status \(status)")
} catch {
    print("error: \(error)")
    exit(1)
}
