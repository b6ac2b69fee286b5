import Foundation
import HTTPTypes
import OpenAPIRuntime
import Parley
import ParleyDemoServer
import Testing

@testable import ParleyTestSupport

/// Records the path of each request that passes it, and the failures found after the chain it is told of.
private struct PathRecorder: ClientMiddleware, CallOutcomeObserver {
    let paths = LockedBox<[String]>([])
    let operations = LockedBox<[String]>([])
    let failures = LockedBox<[ParleyError.Kind]>([])

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let path = String((request.path ?? "").prefix { $0 != "?" })
        paths.mutate { $0.append(path) }
        operations.mutate { $0.append(operationID) }
        return try await next(request, body, baseURL)
    }

    func callFailedAfterChain(_ error: ParleyError, request: HTTPRequest, endpoint: String) {
        failures.mutate { $0.append(error.kind) }
    }
}

private struct Named: Endpoint {
    typealias Response = Echo
    let path: Path
    var name: String { "named-endpoint" }
}

/// An endpoint whose answer (the echo's JSON object) does not decode as a number.
private struct Mistyped: Endpoint {
    typealias Response = Int
    var path: Path { "/echo" }
}

@Suite("The call pipeline: middlewares see each call once, request middlewares each request sent")
struct PipelineTests {
    private func client(
        for server: DemoServer,
        _ kind: TransportKind,
        middlewares: [any ClientMiddleware],
        requestMiddlewares: [any ClientMiddleware]
    ) throws -> Client {
        Client(
            baseURL: try #require(URL(string: server.baseURL)),
            transport: kind.makeTransport(),
            middlewares: middlewares,
            requestMiddlewares: requestMiddlewares
        )
    }

    @Test(
        "a redirect chain passes the client's middleware once and the request middleware at every hop",
        arguments: TransportKind.allCases
    )
    func redirectHops(_ kind: TransportKind) async throws {
        let server = try await DemoServer.start()
        let perCall = PathRecorder()
        let perRequest = PathRecorder()
        let client = try client(for: server, kind, middlewares: [perCall], requestMiddlewares: [perRequest])
        let echo = try await client.send(Named(path: "/redirect/chain/3"))
        try await client.shutdown()
        await server.stop()
        #expect(echo.path == "/echo")
        #expect(perCall.paths.value == ["/redirect/chain/3"])
        #expect(perRequest.paths.value == ["/redirect/chain/3", "/redirect/chain/2", "/redirect/chain/1", "/echo"])
        // The operation ID is the endpoint's name, at every stage.
        #expect(Set(perCall.operations.value + perRequest.operations.value) == ["named-endpoint"])
    }

    @Test("each attempt of a retry passes the request middlewares", arguments: TransportKind.allCases)
    func retryAttempts(_ kind: TransportKind) async throws {
        let server = try await DemoServer.start()
        let perRequest = PathRecorder()
        let client = try client(
            for: server,
            kind,
            middlewares: [.retry(RetryPolicy(maxAttempts: 4, initialBackoff: .milliseconds(2), maxBackoff: .milliseconds(10)))],
            requestMiddlewares: [perRequest]
        )
        let answer = try await client.send(Flaky(failures: 2))
        try await client.shutdown()
        await server.stop()
        #expect(answer.attempts == 3)
        #expect(perRequest.paths.value == ["/flaky", "/flaky", "/flaky"])
    }

    @Test(
        "a middleware of either list that observes outcomes hears of a failure found after the chain",
        arguments: TransportKind.allCases
    )
    func observersHearOfLaterFailures(_ kind: TransportKind) async throws {
        let server = try await DemoServer.start()
        let perCall = PathRecorder()
        let perRequest = PathRecorder()
        let client = try client(for: server, kind, middlewares: [perCall], requestMiddlewares: [perRequest])
        let decoding = await expectParleyError(.decoding) { try await client.send(Mistyped()) }
        let status = await expectParleyError(.unacceptableStatus) { try await client.stream(Named(path: "/status/404")) }
        try await client.shutdown()
        await server.stop()
        #expect(decoding?.request?.url.hasSuffix("/echo") == true)
        #expect(status?.request?.url.hasSuffix("/status/404") == true)
        #expect(perCall.failures.value == [.decoding, .unacceptableStatus])
        #expect(perRequest.failures.value == [.decoding, .unacceptableStatus])
    }
}
