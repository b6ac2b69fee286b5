import AsyncHTTPClient
import Foundation
import Parley
import ParleyAsyncHTTPClient
import ParleyDemoServer
import ParleyURLSession
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The real transports every end-to-end test runs on.
enum TransportKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case asyncHTTPClient
    case urlSession

    var testDescription: String { rawValue }

    func makeTransport() -> any ClientTransport {
        switch self {
        case .asyncHTTPClient: AsyncHTTPClientTransport.shared
        case .urlSession: URLSessionTransport()
        }
    }
}

/// Runs `body` with a fresh demo server on 127.0.0.1 and a client for it on `transport`.
@discardableResult
func withDemoClient<T>(
    _ transport: TransportKind,
    headers: Headers = [:],
    middlewares: [any ClientMiddleware] = [],
    requestMiddlewares: [any ClientMiddleware] = [],
    configuration: Client.Configuration = Client.Configuration(),
    _ body: (Client, DemoServer) async throws -> T
) async throws -> T {
    let server = try await DemoServer.start()
    do {
        let client = Client(
            baseURL: try #require(URL(string: server.baseURL)),
            transport: transport.makeTransport(),
            headers: headers,
            middlewares: middlewares,
            requestMiddlewares: requestMiddlewares,
            configuration: configuration
        )
        do {
            let result = try await body(client, server)
            try await client.shutdown()
            await server.stop()
            return result
        } catch {
            try await client.shutdown()
            throw error
        }
    } catch {
        await server.stop()
        throw error
    }
}

/// Expects `call` to fail with a `ParleyError` of `kind`, and returns it for further checks.
@discardableResult
func expectParleyError<T>(
    _ kind: ParleyError.Kind,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ call: () async throws -> T
) async -> ParleyError? {
    do {
        let value = try await call()
        Issue.record("expected a \(kind) error, got \(value)", sourceLocation: sourceLocation)
        return nil
    } catch let error as ParleyError {
        #expect(error.kind == kind, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected ParleyError, got \(type(of: error)): \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// What the demo server's `/echo` route reports about a request.
struct Echo: Decodable, Sendable {
    let method: String
    let path: String
    let query: String
    let queryItems: [[String]]
    let headers: [[String]]
    let body: String?
    let bodyBase64: String
    let bodyLength: Int

    /// All values of header `name` (case-insensitive).
    func header(_ name: String) -> [String] {
        headers.filter { $0.first?.lowercased() == name.lowercased() }.compactMap { $0.last }
    }
}

/// Echoes any request back.
struct EchoEndpoint: Endpoint {
    typealias Response = Echo
    var method: HTTPRequest.Method = .get
    var path: Path = "/echo"
    var query: Query = []
    var headers: Headers = [:]
    var body: RequestBody = .none
}

extension DemoServer {
    /// A URL on 127.0.0.1 where every connection is refused (a port bound and held, never listening).
    static func closedPortURL() async throws -> URL {
        try #require(URL(string: try RefusedPort.url()))
    }
}

/// Runs `body`, then `shutdown`, whether `body` throws or not: an `HTTPClient` dropped without a shutdown ends a debug
/// process (AsyncHTTPClient's check), which takes every other test down with it.
func shuttingDown(_ shutdown: () async throws -> Void, after body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch {
        try? await shutdown()
        throw error
    }
    try await shutdown()
}
