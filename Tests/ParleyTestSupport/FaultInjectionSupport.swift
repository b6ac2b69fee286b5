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

/// A call to one of the fault server's routes, decoding its answer as `Value` with the default decoder.
struct FaultCall<Value: Decodable & Sendable>: Endpoint {
    typealias Response = Value
    var path: Path
    var query: Query = []
    var timeout: Duration?
}

/// A call to one of the fault server's routes whose answer is read and dropped (`Response` is `Void`).
struct FaultCallDroppingBody: Endpoint {
    typealias Response = Void
    var path: Path
    var query: Query = []
    var timeout: Duration?
}

/// The fault server's `/invalid-json` pretends to answer this.
struct FaultRecord: Decodable, Sendable {
    let id: Int
    let name: String
}

/// The fault server's `/storm` answer once the storm is over.
struct StormAnswer: Decodable, Sendable, Equatable {
    let key: String
    let attempts: Int
}

/// A transport of `kind` with pools of its own (so the connections of one test are not another's), and
/// idle timeouts of `idleTimeout` (AsyncHTTPClient's read timeout, URLSession's `timeoutIntervalForRequest`).
func makeFaultTransport(_ kind: TransportKind, idleTimeout: Duration = .seconds(30)) -> any ClientTransport {
    switch kind {
    case .asyncHTTPClient:
        return AsyncHTTPClientTransport(configuration: AsyncHTTPClientTransport.configuration(readTimeout: idleTimeout))
    case .urlSession:
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = Double(idleTimeout / .milliseconds(1)) / 1000
        return URLSessionTransport(configuration: configuration)
    }
}

/// Runs `body` with a fresh fault server and a client for it on a fresh transport of `kind`; afterwards checks
/// that the client left no connection open (the server waits for its connections to close, at most 5 s), then
/// shuts both down. A call without its own timeout is bounded by 10 s.
@discardableResult
func withFaultClient<T>(
    _ kind: TransportKind,
    idleTimeout: Duration = .seconds(30),
    middlewares: [any ClientMiddleware] = [],
    configuration: Client.Configuration = Client.Configuration(timeout: .seconds(40)),
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: (Client, FaultServer) async throws -> T
) async throws -> T {
    let server = try await FaultServer.start()
    let client = Client(
        baseURL: try #require(URL(string: server.baseURL)),
        transport: makeFaultTransport(kind, idleTimeout: idleTimeout),
        middlewares: middlewares,
        configuration: configuration
    )
    do {
        let result = try await body(client, server)
        do {
            try await server.waitUntilIdle(timeout: .seconds(5))
        } catch let error as FaultServerError {
            Issue.record("\(kind): \(error)", sourceLocation: sourceLocation)
        }
        try await client.shutdown()
        await server.stop()
        return result
    } catch {
        try? await client.shutdown()
        await server.stop()
        throw error
    }
}
