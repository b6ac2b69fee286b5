import Foundation
import HTTPTypes
import InMemoryTracing
import Logging
import OpenAPIRuntime
import Parley
import ParleyDemoServer
import Testing

@testable import ParleyTestSupport

/// The credentials of these tests: none may appear in a log record, a span, an error or a curl command.
private let secrets = ["api-key-secret-value", "endpoint-auth-token-secret", "configured-session-secret"]

/// Where a test puts its API key: the default header, a header of its own naming, a query item of its own naming
/// (neither name is in ``SensitiveFields/default``: only the middleware knows them for credentials).
enum APIKeyPlacement: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case defaultHeader, customHeader, customQueryItem
    var testDescription: String { rawValue }

    var middleware: any ClientMiddleware {
        switch self {
        case .defaultHeader: .apiKey("api-key-secret-value")
        case .customHeader: .apiKey("api-key-secret-value", header: "Api-Token")
        case .customQueryItem: .apiKey("api-key-secret-value", queryItem: "apiToken")
        }
    }
}

/// `/echo` with an endpoint's own token, and a field that is no secret.
private let tokenEcho = EchoEndpoint(
    headers: ["X-Auth-Token": "endpoint-auth-token-secret", "X-Visible": "plain-visible-value"]
)

/// A GET of `path` with query items and header fields of its own.
private struct Fetch<Value: Sendable & Decodable>: Endpoint {
    typealias Response = Value
    var path: Path
    var query: Query = []
    var headers: Headers = [:]
}

/// A request middleware whose error quotes the request's credentials, as a careless one might.
private struct QuotingFailure: ClientMiddleware {
    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        throw ParleyError(.transport, "could not send \(request.path ?? "") with \(request.headerFields.map(\.description))")
    }
}

@Suite("Credentials stay out of logs, spans, errors and curl commands (issue 24, items 5 and 17)", .timeLimit(.minutes(1)))
struct CredentialRedactionTests {
    @Test(
        "Debug logs: the key of .apiKey (any header or query item) and an endpoint's X-Auth-Token are redacted",
        arguments: APIKeyPlacement.allCases,
        [false, true]
    )
    func debugLogs(placement: APIKeyPlacement, asRequestMiddleware: Bool) async throws {
        let log = LogRecorder()
        let logging = LoggingMiddleware.logging(log.logger(level: .debug))
        try await withDemoClient(
            .asyncHTTPClient,
            middlewares: asRequestMiddleware ? [placement.middleware] : [placement.middleware, logging],
            requestMiddlewares: asRequestMiddleware ? [logging] : []
        ) { client, _ in
            let echo = try await client.send(tokenEcho)
            #expect(echo.header("X-Auth-Token") == ["endpoint-auth-token-secret"], "sent as it is")
            let records = log.records
            #expect(records.count == 2, "the line when sent, the line when over")
            let sending = try #require(records.first)
            let headers = sending["http.request.headers"]?.lowercased() ?? ""
            #expect(headers.contains("x-visible: plain-visible-value"), "\(headers)")
            #expect(headers.contains("x-auth-token: <redacted>"), "\(headers)")
            #expect(sending["http.request.curl"]?.contains("plain-visible-value") == true)
            if placement == .customQueryItem {
                #expect(sending["url.full"]?.hasSuffix("/echo?apiToken=<redacted>") == true, "\(sending["url.full"] ?? "")")
            }
            for record in records {
                for secret in secrets { #expect(!record.everything.contains(secret), "\(record.everything)") }
            }
        }
    }

    @Test("Spans: a custom API key query item is REDACTED in url.full, and credentials are scrubbed from recorded errors")
    func spans() async throws {
        let tracer = W3CInMemoryTracer()
        try await withDemoClient(
            .asyncHTTPClient,
            middlewares: [APIKeyPlacement.customQueryItem.middleware],
            requestMiddlewares: [.tracing(tracer: tracer), QuotingFailure()]
        ) { client, _ in
            let error = await expectParleyError(.transport) { try await client.send(tokenEcho) }
            let span = try #require(tracer.finishedSpans.first)
            #expect(span.attribute("url.full")?.hasSuffix("/echo?apiToken=REDACTED") == true)
            let recorded = try #require(span.errors.first)
            let text = "\(recorded.error)"
            #expect(text.contains("plain-visible-value"), "what is no secret stays: \(text)")
            for secret in secrets {
                #expect(!text.contains(secret), "\(text)")
                var attributes = ""
                span.attributes.forEach { key, value in attributes += "\(key)=\(value)\n" }
                #expect(!attributes.contains(secret))
                #expect(!"\(error.map { "\($0)" } ?? "")".contains(secret))
            }
        }
    }

    @Test(
        "Errors: a server quoting the key back, the curl command, the request summary: no credential, in any placement",
        arguments: APIKeyPlacement.allCases
    )
    func errors(placement: APIKeyPlacement) async throws {
        try await withDemoClient(.asyncHTTPClient, middlewares: [placement.middleware]) { client, _ in
            // /echo answers 200 with the request, key included, which does not decode as [Int].
            let error = try #require(
                await expectParleyError(.decoding) {
                    try await client.send(Fetch<[Int]>(path: "/echo", headers: ["X-Auth-Token": "endpoint-auth-token-secret"]))
                }
            )
            let curl = try #require(error.curlCommand)
            #expect(curl.contains("X-Auth-Token: <redacted>"), "\(curl)")
            let body = String(decoding: error.body ?? Data(), as: UTF8.self)
            #expect(body.contains("<redacted>"), "the echo of the key scrubbed: \(body)")
            for secret in secrets {
                #expect(!curl.contains(secret), "\(curl)")
                #expect(!"\(error)".contains(secret), "\(error)")
                #expect(!body.contains(secret))
                let url = error.request?.url ?? ""
                #expect(!url.contains(secret))
            }
        }
    }

    @Test("Item 17: no middleware, no cookie jar, a 500: the curl command has the endpoint's header fields, redacted")
    func curlWithoutMiddlewares() async throws {
        try await withDemoClient(.asyncHTTPClient, headers: ["X-Client": "client-wide"]) { client, server in
            let endpoint = Fetch<String>(
                path: "/status/500",
                query: ["token": "endpoint-auth-token-secret", "page": "2"],
                headers: ["X-Auth-Token": "endpoint-auth-token-secret", "X-Visible": "plain-visible-value"]
            )
            let error = try #require(await expectParleyError(.unacceptableStatus) { try await client.send(endpoint) })
            let curl = try #require(error.curlCommand)
            #expect(curl.contains("-H 'X-Visible: plain-visible-value'"), "\(curl)")
            #expect(curl.contains("-H 'X-Client: client-wide'"), "\(curl)")
            #expect(curl.contains("-H 'X-Auth-Token: <redacted>'"), "\(curl)")
            #expect(curl.contains("'\(server.baseURL)/status/500?token=<redacted>&page=2'"), "\(curl)")
            #expect(curl.contains("--compressed"))
            #expect(error.request?.url == "\(server.baseURL)/status/500?token=<redacted>&page=2")
            for secret in secrets { #expect(!"\(error)".contains(secret)) }
        }
    }

    @Test("Item 17: past the call's timeout, the curl command still has the endpoint's header fields")
    func curlAfterTimeout() async throws {
        var configuration = Client.Configuration()
        configuration.timeout = .milliseconds(200)
        try await withDemoClient(.asyncHTTPClient, configuration: configuration) { client, _ in
            let endpoint = Fetch<String>(path: "/slow", query: ["ms": "5000"], headers: ["X-Visible": "plain-visible-value"])
            let error = try #require(await expectParleyError(.timeout) { try await client.send(endpoint) })
            #expect(error.curlCommand?.contains("-H 'X-Visible: plain-visible-value'") == true, "\(error.curlCommand ?? "")")
        }
    }

    @Test("Client.Configuration.sensitiveFields: a name of one's own is redacted in logs and errors alike")
    func configuredNames() async throws {
        let log = LogRecorder()
        var configuration = Client.Configuration()
        configuration.sensitiveFields = SensitiveFields().adding(headerFields: ["X-Session"], queryItems: ["sessionid"])
        try await withDemoClient(
            .asyncHTTPClient,
            requestMiddlewares: [.logging(log.logger(level: .debug))],
            configuration: configuration
        ) { client, server in
            let endpoint = Fetch<[Int]>(
                path: "/echo",
                query: ["sessionid": "configured-session-secret"],
                headers: ["X-Session": "configured-session-secret", "X-Visible": "plain-visible-value"]
            )
            let error = try #require(await expectParleyError(.decoding) { try await client.send(endpoint) })
            #expect(error.request?.url == "\(server.baseURL)/echo?sessionid=<redacted>")
            #expect(error.curlCommand?.contains("X-Session: <redacted>") == true)
            #expect(
                log.records.contains {
                    $0["http.request.headers"]?.lowercased().contains("x-visible: plain-visible-value") == true
                }
            )
            for secret in secrets {
                #expect(!"\(error)".contains(secret))
                #expect(!(error.curlCommand ?? "").contains(secret))
                for record in log.records { #expect(!record.everything.contains(secret), "\(record.everything)") }
            }
        }
    }

    @Test("CurlCommand of one's own takes the same list")
    func curlCommandOfOnesOwn() throws {
        var request = HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/x?sessionid=abcd1234")
        request.headerFields[try #require(HTTPField.Name("X-Session"))] = "abcd1234"
        request.headerFields[try #require(HTTPField.Name("X-Auth-Token"))] = "abcd1234"
        let sensitive = SensitiveFields().adding(headerFields: ["X-Session"], queryItems: ["SessionID"])
        let command = CurlCommand(request, sensitiveFields: sensitive).description
        #expect(!command.contains("abcd1234"), "\(command)")
        #expect(command.contains("sessionid=<redacted>") && command.contains("X-Session: <redacted>"))
    }
}
