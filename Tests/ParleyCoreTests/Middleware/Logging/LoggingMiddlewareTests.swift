import Foundation
import HTTPTypes
import Logging
import Parley
import ParleyDemoServer
import Testing

@testable import ParleyTestSupport

/// The secrets a request in these tests carries; none may appear in any record.
private let secrets = ["s3cr3t-query-token", "sekret-bearer", "cookie-secret", "extra-header-secret"]

/// `/echo` with a secret query item, a harmless one, and secret header fields.
private let secretEcho = EchoEndpoint(
    query: ["token": "s3cr3t-query-token", "page": "2"],
    headers: ["Authorization": "Bearer sekret-bearer", "Cookie": "session=cookie-secret", "X-Extra": "extra-header-secret"]
)

extension LogRecorder {
    /// The lines written when exchanges were over (those with a duration).
    var completions: [Record] { records.filter { $0["parley.duration_ms"] != nil } }
}

@Suite("Logging middleware", .timeLimit(.minutes(1)))
struct LoggingMiddlewareTests {
    @Test(
        "One info line per exchange: method, redacted URL, status, duration, attempt, bytes, request id",
        arguments: TransportKind.allCases
    )
    func completedExchange(transport: TransportKind) async throws {
        let log = LogRecorder()
        try await withDemoClient(transport, middlewares: [.logging(log.logger(level: .info))]) { client, server in
            let echo = try await client.send(secretEcho)
            #expect(echo.header("authorization") == ["Bearer sekret-bearer"])
            #expect(log.records.count == 1)
            let line = try #require(log.completions.first)
            #expect(line.level == .info)
            #expect(line["http.request.method"] == "GET")
            #expect(line["url.full"] == "\(server.baseURL)/echo?token=<redacted>&page=2")
            #expect(line["http.response.status_code"] == "200")
            #expect(line["parley.attempt"] == "1")
            #expect(line["parley.endpoint"] == "EchoEndpoint")
            #expect(line["parley.bytes_sent"] == "0")
            #expect(Int(line["parley.bytes_received"] ?? "") ?? 0 > 100)
            #expect(Double(line["parley.duration_ms"] ?? "") != nil)
            #expect(UUID(uuidString: line["parley.request_id"] ?? "") != nil)
            #expect(line.message.hasPrefix("GET \(server.baseURL)/echo?token=<redacted>&page=2 → 200 OK in "))
            #expect(line["http.request.headers"] == nil, "headers only at debug")
            #expect(line["http.response.body"] == nil, "bodies only at trace")
            for secret in secrets { #expect(!line.everything.contains(secret)) }
        }
    }

    @Test(
        "A call that fails above the chain (status, decoding) gets a line of its own at the failure level, secrets redacted",
        arguments: TransportKind.allCases
    )
    func failureAfterChain(transport: TransportKind) async throws {
        let log = LogRecorder()
        try await withDemoClient(transport, middlewares: [.logging(log.logger(level: .info))]) { client, server in
            await expectParleyError(.decoding) {
                try await client.send(Get<[Int]>(path: "/echo", query: ["token": "s3cr3t-query-token"]))
            }
            let records = log.records
            #expect(records.count == 2)
            #expect(records.first?.level == .info, "the exchange itself went well: 200")
            let failure = try #require(records.last)
            #expect(failure.level == .warning)
            #expect(failure["parley.error_kind"] == "decoding")
            #expect(failure["url.full"] == "\(server.baseURL)/echo?token=<redacted>")
            #expect(
                failure.message.hasPrefix(
                    "GET \(server.baseURL)/echo?token=<redacted>: Get<Array<Int>> failed after its response: [decoding] "
                ),
                "\(failure.message)"
            )
            for secret in secrets { #expect(!failure.everything.contains(secret)) }
        }
    }

    @Test(
        "At debug: a line when sent, and header fields with Authorization, Cookie, Set-Cookie and configured ones redacted",
        arguments: TransportKind.allCases
    )
    func debugHeaders(transport: TransportKind) async throws {
        let log = LogRecorder()
        let logging = LoggingMiddleware.logging(log.logger(level: .debug), redactedHeaders: [HTTPField.Name("X-Extra")!])
        try await withDemoClient(transport, middlewares: [logging]) { client, _ in
            _ = try await client.send(secretEcho)
            _ = try await client.send(GetData(path: "/headers/multi"))
            let records = log.records
            #expect(records.count == 4)
            #expect(records.filter { $0.level == .debug && $0.message.hasPrefix("→ GET ") }.count == 2)
            let sent = try #require(records.first?["http.request.headers"])
            for field in ["authorization: <redacted>", "cookie: <redacted>", "x-extra: <redacted>"] {
                #expect(sent.contains(field), "\(sent)")
            }
            // The request as a curl command line, with the same fields redacted.
            let curl = try #require(records.first?["http.request.curl"])
            #expect(curl.hasPrefix("curl '"), "\(curl)")
            for field in ["-H 'Authorization: <redacted>'", "-H 'Cookie: <redacted>'", "-H 'X-Extra: <redacted>'"] {
                #expect(curl.contains(field), "\(curl)")
            }
            let multi = try #require(log.completions.last?["http.response.headers"])
            #expect(multi.contains("set-cookie: <redacted>") && multi.contains("x-multi: one"), "\(multi)")
            #expect(!multi.contains("a=1") && !multi.contains("b=2"))
            for record in records {
                #expect(record["http.request.body"] == nil)
                for secret in secrets { #expect(!record.everything.contains(secret)) }
            }
        }
    }

    @Test("At trace: the first bodyLimit bytes of each body, cut with …", arguments: TransportKind.allCases)
    func traceBodies(transport: TransportKind) async throws {
        let log = LogRecorder()
        let payload = String(repeating: "abcdefghij", count: 20)
        try await withDemoClient(transport, middlewares: [.logging(log.logger(level: .trace), bodyLimit: 16)]) { client, _ in
            let echo = try await client.send(EchoEndpoint(method: .post, body: .text(payload)))
            #expect(echo.body == payload, "the body still reaches the server whole")
            let line = try #require(log.completions.first)
            #expect(line["http.request.body"] == "abcdefghijabcdef…")
            let response = try #require(line["http.response.body"])
            #expect(
                response.hasPrefix("{\"") && response.hasSuffix("…") && response.utf8.count == 16 + "…".utf8.count,
                "\(response)"
            )
            #expect(line["parley.bytes_sent"] == "200")
        }
    }

    @Test(
        "At trace a streamed body still streams: an endless body is read chunk by chunk, and logged when dropped",
        arguments: TransportKind.allCases
    )
    func traceKeepsStreaming(transport: TransportKind) async throws {
        let log = LogRecorder()
        try await withDemoClient(transport, middlewares: [.logging(log.logger(level: .trace), bodyLimit: 4)]) { client, _ in
            do {
                let streamed = try await client.stream(GetData(path: "/hang"))
                var chunks = streamed.body.makeAsyncIterator()
                let first = try await chunks.next()
                #expect(first?.isEmpty == false)
                #expect(log.completions.isEmpty, "the body never ends, so the exchange is not over")
            }
            let line = try #require(log.completions.first)
            #expect(line["parley.body_dropped"] == "true")
            #expect(line.message.contains("(body not read to its end)"))
            #expect((line["http.response.body"]?.count ?? 99) <= 5)
        }
    }

    @Test(
        "Connection refused: logged at the failure level with its error kind, no secret in the error",
        arguments: TransportKind.allCases
    )
    func refused(transport: TransportKind) async throws {
        let log = LogRecorder()
        try await withRefusingClient(transport, middlewares: [.logging(log.logger(level: .info), failureLevel: .error)]) {
            client in
            await expectParleyError(.transport) { try await client.send(secretEcho) }
            let line = try #require(log.completions.first)
            #expect(line.level == .error)
            #expect(line["parley.error_kind"] == "transport")
            #expect(line["http.response.status_code"] == nil)
            #expect(line.message.contains(" failed after ") && line.message.contains("[transport]"), "\(line.message)")
            #expect(line.error is ParleyError)
            for secret in secrets { #expect(!line.everything.contains(secret), "\(line.everything)") }
        }
    }

    @Test("A 5xx answer is logged at the failure level, a 4xx at the normal one", arguments: TransportKind.allCases)
    func statusLevels(transport: TransportKind) async throws {
        let log = LogRecorder()
        try await withDemoClient(transport, middlewares: [.logging(log.logger(level: .info))]) { client, _ in
            await expectParleyError(.unacceptableStatus) { try await client.send(GetText(path: "/status/503")) }
            await expectParleyError(.unacceptableStatus) { try await client.send(GetText(path: "/status/404")) }
            #expect(log.completions.map(\.level) == [.warning, .info])
            #expect(log.completions.map { $0["http.response.status_code"] } == ["503", "404"])
        }
    }

    @Test(
        "A body cut off by the server is logged as a failure after the head, with bytes received",
        arguments: TransportKind.allCases
    )
    func bodyCutOff(transport: TransportKind) async throws {
        let log = LogRecorder()
        try await withDemoClient(transport, middlewares: [.logging(log.logger(level: .info))]) { client, _ in
            await expectParleyError(.transport) { try await client.send(GetData(path: "/close-mid-body")) }
            let line = try #require(log.completions.first)
            #expect(line.level == .warning)
            #expect(line["http.response.status_code"] == "200")
            #expect(line["parley.error_kind"] == "transport")
            #expect(line.message.contains("then reading the body failed"), "\(line.message)")
        }
    }

    @Test("After .retry() each attempt is logged with its number and its own request id", arguments: TransportKind.allCases)
    func attempts(transport: TransportKind) async throws {
        let log = LogRecorder()
        let fast = RetryPolicy(maxAttempts: 3, initialBackoff: .milliseconds(2), maxBackoff: .milliseconds(10))
        try await withDemoClient(transport, middlewares: [.retry(fast), .logging(log.logger(level: .info))]) { client, _ in
            let answer = try await client.send(Flaky(failures: 2))
            #expect(answer.attempts == 3)
            let lines = log.completions
            #expect(lines.map { $0["parley.attempt"] } == ["1", "2", "3"])
            #expect(lines.map { $0["http.response.status_code"] } == ["503", "503", "200"])
            #expect(lines.map(\.level) == [.warning, .warning, .info])
            #expect(Set(lines.compactMap { $0["parley.request_id"] }).count == 3)
        }
    }

    @Test("The request id can be sent as a header; one already set is kept", arguments: TransportKind.allCases)
    func requestIDHeader(transport: TransportKind) async throws {
        let log = LogRecorder()
        let logging = LoggingMiddleware.logging(log.logger(level: .info), requestIDHeader: HTTPField.Name("X-Request-ID")!)
        try await withDemoClient(transport, middlewares: [logging]) { client, _ in
            let echo = try await client.send(EchoEndpoint())
            let id = try #require(log.completions.first?["parley.request_id"])
            #expect(echo.header("x-request-id") == [id])
            let given = try await client.send(EchoEndpoint(headers: ["X-Request-ID": "given-42"]))
            #expect(given.header("x-request-id") == ["given-42"])
            #expect(log.completions.last?["parley.request_id"] == "given-42")
        }
    }

    @Test("Outside a Client (as in an OpenAPI-generated client): the operation ID names the endpoint, user info is redacted")
    func standalone() async throws {
        let log = LogRecorder()
        let server = try await DemoServer.start()
        do {
            let transport = TransportKind.asyncHTTPClient.makeTransport()
            let plain = try #require(URL(string: server.baseURL))
            let withCredentials = try #require(URL(string: "http://ada:pass-w0rd@127.0.0.1:\(server.port)"))
            let (response, body) = try await LoggingMiddleware(logger: log.logger(level: .info)).intercept(
                HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/echo?api_key=k3y-secret"),
                body: nil,
                baseURL: withCredentials,
                operationID: "getEcho"
            ) { request, body, _ in
                try await transport.send(request, body: body, baseURL: plain, operationID: "getEcho")
            }
            #expect(response.status == .ok)
            _ = try await Data(collecting: try #require(body), upTo: 1 << 20)
            let line = try #require(log.completions.first)
            #expect(line["url.full"] == "http://<redacted>:<redacted>@127.0.0.1:\(server.port)/echo?api_key=<redacted>")
            #expect(line["parley.endpoint"] == "getEcho")
            #expect(!line.everything.contains("pass-w0rd") && !line.everything.contains("k3y-secret"))
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test("Below the logger's level nothing is written")
    func belowLevel() async throws {
        let log = LogRecorder()
        try await withDemoClient(.asyncHTTPClient, middlewares: [.logging(log.logger(level: .error))]) { client, _ in
            _ = try await client.send(EchoEndpoint())
            await expectParleyError(.unacceptableStatus) { try await client.send(GetText(path: "/status/500")) }
            #expect(log.records.isEmpty)
        }
    }
}
