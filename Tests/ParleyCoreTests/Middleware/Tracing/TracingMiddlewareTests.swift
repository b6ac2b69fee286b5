import Foundation
import HTTPTypes
import InMemoryTracing
import Parley
import ParleyDemoServer
import Testing
import Tracing

@testable import ParleyTestSupport

/// A W3C `traceparent` value: version 00, 32-hex trace id, 16-hex span id, 2-hex flags.
private func isTraceParent(_ value: String) -> Bool {
    let parts = value.split(separator: "-", omittingEmptySubsequences: false)
    let hex = { (part: Substring, count: Int) in
        part.count == count && part.allSatisfy(\.isHexDigit) && part.allSatisfy { !$0.isUppercase }
    }
    return parts.count == 4 && parts[0] == "00" && hex(parts[1], 32) && hex(parts[2], 16) && hex(parts[3], 2)
        && parts[1] != String(repeating: "0", count: 32) && parts[2] != String(repeating: "0", count: 16)
}

@Suite("Tracing middleware", .timeLimit(.minutes(1)))
struct TracingMiddlewareTests {
    @Test(
        "One CLIENT span named after the method, with OpenTelemetry's HTTP attributes; the server receives its traceparent",
        arguments: TransportKind.allCases
    )
    func spanAndTraceParent(transport: TransportKind) async throws {
        let tracer = W3CInMemoryTracer()
        try await withDemoClient(transport, middlewares: [.tracing(tracer: tracer)]) { client, server in
            let echo = try await client.send(EchoEndpoint(query: ["token": "s3cr3t", "page": "2"]))
            let span = try #require(tracer.finishedSpans.first)
            #expect(tracer.finishedSpans.count == 1)
            #expect(span.operationName == "GET")
            #expect(span.kind == .client)
            #expect(span.attribute("http.request.method") == "GET")
            #expect(span.attribute("url.full") == "\(server.baseURL)/echo?token=REDACTED&page=2")
            #expect(span.attribute("url.scheme") == "http")
            #expect(span.attribute("server.address") == "127.0.0.1")
            #expect(span.attribute("server.port") == "\(server.port)")
            #expect(span.attribute("http.response.status_code") == "200")
            #expect(span.attribute("parley.endpoint") == "EchoEndpoint")
            #expect(span.attribute("http.request.resend_count") == nil)
            #expect(span.attribute("error.type") == nil)
            #expect(span.status == nil)
            #expect(span.errors.isEmpty)
            let traceParent = try #require(echo.header("traceparent").first)
            #expect(echo.header("traceparent").count == 1)
            #expect(isTraceParent(traceParent), "\(traceParent)")
            #expect(traceParent == "00-\(span.traceID)-\(span.spanID)-01")
        }
    }

    @Test(
        "The context goes through the tracer's own injector: InMemoryTracer's fields reach the server",
        arguments: TransportKind.allCases
    )
    func tracerOwnInjector(transport: TransportKind) async throws {
        let tracer = InMemoryTracer()
        try await withDemoClient(transport, middlewares: [.tracing(tracer: tracer)]) { client, _ in
            let echo = try await client.send(EchoEndpoint())
            let span = try #require(tracer.finishedSpans.first)
            #expect(echo.header(InMemoryTracer.traceIDKey) == [span.traceID])
            #expect(echo.header(InMemoryTracer.spanIDKey) == [span.spanID])
            #expect(echo.header("traceparent").isEmpty)
            #expect(tracer.performedContextInjections.map { $0.values[InMemoryTracer.spanIDKey] } == [span.spanID])
        }
    }

    @Test("The span is a child of the caller's span, in its trace", arguments: TransportKind.allCases)
    func parentChild(transport: TransportKind) async throws {
        let tracer = W3CInMemoryTracer()
        try await withDemoClient(transport, middlewares: [.tracing(tracer: tracer)]) { client, _ in
            let echo = try await tracer.withSpan("checkout") { _ in try await client.send(EchoEndpoint()) }
            let spans = tracer.finishedSpans
            let parent = try #require(spans.first { $0.operationName == "checkout" })
            let child = try #require(spans.first { $0.operationName == "GET" })
            #expect(child.parentSpanID == parent.spanID)
            #expect(child.traceID == parent.traceID)
            #expect(echo.header("traceparent") == ["00-\(parent.traceID)-\(child.spanID)-01"])
        }
    }

    @Test(
        "A 4xx or 5xx answer sets the span's status to error with error.type the status code",
        arguments: TransportKind.allCases
    )
    func errorStatuses(transport: TransportKind) async throws {
        let tracer = InMemoryTracer()
        try await withDemoClient(transport, middlewares: [.tracing(tracer: tracer)]) { client, _ in
            await expectParleyError(.unacceptableStatus) { try await client.send(GetText(path: "/status/404")) }
            await expectParleyError(.unacceptableStatus) { try await client.send(GetText(path: "/status/503")) }
            _ = try await client.send(GetText(path: "/status/201"))
            let spans = tracer.finishedSpans
            #expect(spans.map { $0.attribute("http.response.status_code") } == ["404", "503", "201"])
            #expect(spans.map { $0.attribute("error.type") } == ["404", "503", nil])
            #expect(spans.map { $0.status?.code } == [.error, .error, nil])
            #expect(spans.allSatisfy { $0.errors.isEmpty }, "a status is not an exception")
        }
    }

    @Test("Connection refused: the error is recorded, error.type is its kind, no status code", arguments: TransportKind.allCases)
    func refused(transport: TransportKind) async throws {
        let tracer = InMemoryTracer()
        try await withRefusingClient(transport, middlewares: [.tracing(tracer: tracer)]) { client in
            await expectParleyError(.transport) { try await client.send(EchoEndpoint()) }
            let span = try #require(tracer.finishedSpans.first)
            #expect(tracer.finishedSpans.count == 1)
            #expect(span.attribute("error.type") == "transport")
            #expect(span.attribute("http.response.status_code") == nil)
            #expect(span.status?.code == .error)
            #expect((span.errors.first?.error as? ParleyError)?.kind == .transport)
        }
    }

    @Test("A body cut off after the head: the span keeps the status and records the error", arguments: TransportKind.allCases)
    func bodyCutOff(transport: TransportKind) async throws {
        let tracer = InMemoryTracer()
        try await withDemoClient(transport, middlewares: [.tracing(tracer: tracer)]) { client, _ in
            await expectParleyError(.transport) { try await client.send(GetData(path: "/close-mid-body")) }
            let span = try #require(tracer.finishedSpans.first)
            #expect(span.attribute("http.response.status_code") == "200")
            #expect(span.attribute("error.type") == "transport")
            #expect(span.errors.count == 1)
            #expect(span.status?.code == .error)
        }
    }

    @Test("A call failing before anything is sent gets one span recording the error")
    func failsBeforeSending() async throws {
        let tracer = InMemoryTracer()
        let auth = BearerAuthMiddleware.bearerAuth { _ in throw TokenServiceDown() }
        try await withDemoClient(.asyncHTTPClient, middlewares: [.tracing(tracer: tracer), auth]) { client, _ in
            await expectParleyError(.authentication) { try await client.send(EchoEndpoint()) }
            let span = try #require(tracer.finishedSpans.first)
            #expect(tracer.finishedSpans.count == 1)
            #expect(span.attribute("error.type") == "authentication")
            #expect(span.errors.count == 1)
            #expect(tracer.performedContextInjections.isEmpty, "nothing was sent")
        }
        // The same with tracing listed among the request middlewares, the failing auth above it.
        let requestTracer = InMemoryTracer()
        try await withDemoClient(.asyncHTTPClient, middlewares: [auth], requestMiddlewares: [.tracing(tracer: requestTracer)]) {
            client,
            _ in
            await expectParleyError(.authentication) { try await client.send(EchoEndpoint()) }
            #expect(requestTracer.finishedSpans.map { $0.attribute("error.type") } == ["authentication"])
            #expect(requestTracer.performedContextInjections.isEmpty, "nothing was sent")
        }
    }

    @Test("Outside a Client (as in an OpenAPI-generated client) the middleware opens the span itself; user info is redacted")
    func standalone() async throws {
        let tracer = W3CInMemoryTracer()
        let server = try await DemoServer.start()
        do {
            let transport = TransportKind.asyncHTTPClient.makeTransport()
            let plain = try #require(URL(string: server.baseURL))
            let withCredentials = try #require(URL(string: "http://ada:pass-w0rd@127.0.0.1:\(server.port)"))
            let (response, body) = try await TracingMiddleware(tracer: tracer).intercept(
                HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/echo"),
                body: nil,
                baseURL: withCredentials,
                operationID: "getEcho"
            ) { request, body, _ in
                try await transport.send(request, body: body, baseURL: plain, operationID: "getEcho")
            }
            #expect(response.status == .ok)
            let bytes = try await Data(collecting: try #require(body), upTo: 1 << 20)
            let echo = try JSONDecoder().decode(Echo.self, from: bytes)
            let span = try #require(tracer.finishedSpans.first)
            #expect(span.attribute("parley.endpoint") == "getEcho")
            #expect(span.attribute("url.full") == "http://REDACTED:REDACTED@127.0.0.1:\(server.port)/echo")
            #expect(span.attribute("server.address") == "127.0.0.1")
            #expect(echo.header("traceparent") == ["00-\(span.traceID)-\(span.spanID)-01"])
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test("With the no-op tracer (nothing bootstrapped), requests pass untouched; two tracing middlewares trace once")
    func noOpAndDuplicate() async throws {
        let tracer = InMemoryTracer()
        try await withDemoClient(.asyncHTTPClient, middlewares: [.tracing()]) { client, _ in
            let echo = try await client.send(EchoEndpoint())
            #expect(echo.header("traceparent").isEmpty && echo.header(InMemoryTracer.traceIDKey).isEmpty)
        }
        try await withDemoClient(.asyncHTTPClient, middlewares: [.tracing(tracer: tracer), .tracing(tracer: tracer)]) {
            client,
            _ in
            _ = try await client.send(EchoEndpoint())
            #expect(tracer.finishedSpans.count == 1)
            #expect(tracer.performedContextInjections.count == 1)
        }
    }
}

/// A token provider's failure.
struct TokenServiceDown: Error {}
