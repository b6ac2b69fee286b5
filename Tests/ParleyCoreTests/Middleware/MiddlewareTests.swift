import Foundation
import Parley
import ParleyDemoServer
import Testing

@testable import ParleyTestSupport

/// Collects lines from middlewares, in order.
final class Trail: Sendable {
    private let lines = LockedState<[String]>([])
    func add(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

struct TrailMiddleware: ClientMiddleware {
    let name: String
    let trail: Trail
    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        trail.add("\(name) out \(operationID)")
        let result = try await next(request, body, baseURL)
        trail.add("\(name) back \(result.0.status.code)")
        return result
    }
}

struct AddHeader: ClientMiddleware {
    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        // swift-format-ignore: NeverForceUnwrap
        request.headerFields[HTTPField.Name("X-Added")!] = "by-middleware"
        request.path = (request.path ?? "") + "/rewritten"
        return try await next(request, body, baseURL)
    }
}

struct CannedResponse: ClientMiddleware {
    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        (
            HTTPResponse(status: .ok, headerFields: [.contentType: "application/json"]),
            HTTPBody(#"{"id":7,"name":"Cached","email":"cache@example.com"}"#)
        )
    }
}

struct Refuse: ClientMiddleware {
    struct NotAllowed: Error, CustomStringConvertible { var description: String { "requests to this host are not allowed" } }
    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        throw NotAllowed()
    }
}

struct RewriteResponse: ClientMiddleware {
    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var (response, _) = try await next(request, body, baseURL)
        response.status = .ok
        response.headerFields[.contentType] = "application/json"
        return (response, HTTPBody(#"{"id":0,"name":"Rewritten","email":"x@example.com"}"#))
    }
}

struct Fallback: ClientMiddleware {
    let trail: Trail
    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        do {
            return try await next(request, body, baseURL)
        } catch let error as ParleyError {
            trail.add("recovered from \(error.kind)")
            return (HTTPResponse(status: .ok), HTTPBody(#"{"id":1,"name":"Offline","email":"offline@example.com"}"#))
        }
    }
}

@Suite("Middleware")
struct MiddlewareTests {
    @Test("runs in order on the way out and in reverse on the way back", arguments: TransportKind.allCases)
    func order(transport: TransportKind) async throws {
        let trail = Trail()
        let chain: [any ClientMiddleware] = ["a", "b", "c"].map { TrailMiddleware(name: $0, trail: trail) }
        try await withDemoClient(transport, middlewares: chain) { client, _ in
            _ = try await client.send(GetUser(id: 1))
        }
        #expect(trail.all == ["a out GetUser", "b out GetUser", "c out GetUser", "c back 200", "b back 200", "a back 200"])
    }

    @Test("can modify the request", arguments: TransportKind.allCases)
    func modifyRequest(transport: TransportKind) async throws {
        try await withDemoClient(transport, middlewares: [AddHeader()]) { client, _ in
            let echo = try await client.send(EchoEndpoint())
            #expect(echo.header("x-added") == ["by-middleware"])
            #expect(echo.path == "/echo/rewritten")
        }
    }

    @Test("can short-circuit with its own response: nothing further runs", arguments: TransportKind.allCases)
    func shortCircuitResponse(transport: TransportKind) async throws {
        let trail = Trail()
        try await withDemoClient(transport, middlewares: [CannedResponse(), TrailMiddleware(name: "inner", trail: trail)]) {
            client,
            _ in
            let sent111 = try await client.send(GetUser(id: 1))
            #expect(sent111.name == "Cached")
        }
        #expect(trail.all.isEmpty)
    }

    @Test("can short-circuit with an error, reported as a middleware error", arguments: TransportKind.allCases)
    func shortCircuitError(transport: TransportKind) async throws {
        try await withDemoClient(transport, middlewares: [Refuse()]) { client, _ in
            let error = await expectParleyError(.middleware) { try await client.send(GetUser(id: 1)) }
            #expect(error?.underlying is Refuse.NotAllowed)
            #expect(error?.description.contains("requests to this host are not allowed") == true)
            #expect(error?.message.contains("The middleware Refuse failed") == true)
        }
    }

    @Test("can change the response on the way back", arguments: TransportKind.allCases)
    func changeResponse(transport: TransportKind) async throws {
        try await withDemoClient(transport, middlewares: [RewriteResponse()]) { client, _ in
            let sent128 = try await client.send(GetUser(id: 99))
            #expect(sent128.name == "Rewritten")
        }
    }

    @Test("can recover from a downstream error", arguments: TransportKind.allCases)
    func recover(transport: TransportKind) async throws {
        let trail = Trail()
        let closed = try await DemoServer.closedPortURL()
        let client = Client(baseURL: closed, transport: transport.makeTransport(), middlewares: [Fallback(trail: trail)])
        let sent137 = try await client.send(GetUser(id: 1))
        #expect(sent137.name == "Offline")
        #expect(trail.all == ["recovered from transport"])
    }
}
