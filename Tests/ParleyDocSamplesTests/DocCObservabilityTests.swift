// swift-format-ignore-file
// Laid out line for line as the swift blocks of the article it compiles (scripts/check-docs).
import Foundation
import InMemoryTracing
import Logging
import MetricsTestKit
import Parley
import ParleyAsyncHTTPClient
import ParleyDemoServer
import Testing
import Tracing

// The Swift blocks of Sources/Parley/Parley.docc/Observability.md, compiled and run against the demo server. The
// article's `logger` is a LogRecorder's here (DocCSupport.swift), so that the lines
// can be checked.
enum DocCObservability {
    struct User: Codable, Sendable {
        let id: Int
        let name: String
        let email: String
    }

    struct GetUser: Endpoint {
        typealias Response = User
        let id: Int
        var path: Path { "/users/\(id)" }
    }

    struct Echo: Endpoint {   // /echo answers with the request it received
        typealias Response = JSONValue
        var path: Path { "/echo" }
        var query: Query { ["session": "s3cr3t", "page": "2"] }
        var headers: Headers { ["X-Session": "also-s3cr3t"] }
    }
}

extension DocCObservability {
    @Suite("DocC: Observability", .timeLimit(.minutes(1)))
    struct Examples {
        @Test("a line per exchange; secrets redacted; the request id sent to the server")
        func logs() async throws {
            try await withDocServer { baseURL, _ in
                do {
                    var logger = Logger(label: "com.example.api")
                    logger.logLevel = .info
                    #expect(logger.logLevel == .info)
                }
                let recorder = LogRecorder()
                let logger = recorder.logger(level: .info)
                let client = Client(baseURL: baseURL, middlewares: [.retry(), .logging(logger)])
                _ = try await client.send(GetUser(id: 1))
                // info: GET http://127.0.0.1:8080/users/1 → 200 OK in 2.1 ms (attempt 1, sent 0 B, received 56 B)
                //       parley.request_id=… parley.endpoint=GetUser parley.attempt=1 http.response.status_code=200 …
                let line = try #require(recorder.records.last)
                #expect(line.level == .info)
                #expect(line.message.hasPrefix("GET \(baseURL.absoluteString)/users/1 → 200 OK in "))
                #expect(line.message.hasSuffix("(attempt 1, sent 0 B, received 56 B)"))
                #expect(line["parley.endpoint"] == "GetUser" && line["parley.request_id"] != nil)

                let careful = Client(
                    baseURL: baseURL,
                    middlewares: [
                        .logging(
                            logger,
                            redactedQueryItems: LoggingMiddleware.defaultRedactedQueryItems.union(["session"]),
                            redactedHeaders: [HTTPField.Name("X-Session")!],   // a valid field name: never nil
                            requestIDHeader: HTTPField.Name("X-Request-ID")
                        ),
                    ]
                )
                let echo = try await careful.send(Echo())
                let record = try #require(recorder.records.last)
                #expect(record.everything.contains("s3cr3t") == false)
                #expect(record["url.full"]?.contains("session=<redacted>&page=2") == true)
                let sentID = echo["headers"].flatMap { headers -> String? in
                    guard case .array(let fields) = headers else { return nil }
                    return fields.first { $0[0] == .string("x-request-id") }?[1]?.stringValue
                }
                #expect(sentID != nil && sentID == record["parley.request_id"])

                var settings = Client.Configuration()
                settings.sensitiveFields = SensitiveFields().adding(headerFields: ["X-Session"], queryItems: ["session"])
                let guarded = Client(baseURL: baseURL, middlewares: [.logging(logger)], configuration: settings)
                _ = try await guarded.send(Echo())
                // info: GET http://127.0.0.1:8080/echo?session=<redacted>&page=2 → 200 OK in 1.2 ms (…)
                let guardedLine = try #require(recorder.records.last)
                #expect(guardedLine["url.full"] == "\(baseURL.absoluteString)/echo?session=<redacted>&page=2")
                #expect(guardedLine.everything.contains("s3cr3t") == false)
            }
        }

        @Test("a failed call's request as a curl command; a request of one's own")
        func curl() async throws {
            try await withDocServer { baseURL, _ in
                let client = Client(baseURL: baseURL)
do throws(ParleyError) {
    _ = try await client.send(GetUser(id: 404))
} catch {
    print(error.curlCommand ?? "")
    // curl 'http://127.0.0.1:8080/users/404' --compressed
}
let upload = HTTPRequest(method: .post, scheme: "https", authority: "api.example.com", path: "/users")
print(CurlCommand(upload, body: .data(Data(#"{"name":"Ada"}"#.utf8))))
// curl 'https://api.example.com/users' --data-binary '{"name":"Ada"}'
                #expect(
                    CurlCommand(upload, body: .data(Data(#"{"name":"Ada"}"#.utf8))).description
                        == #"curl 'https://api.example.com/users' --data-binary '{"name":"Ada"}'"#
                )
                let failed = await #expect(throws: ParleyError.self) { _ = try await client.send(GetUser(id: 404)) }
                #expect(failed?.kind == .unacceptableStatus)
                #expect(failed?.curlCommand == "curl '\(baseURL.absoluteString)/users/404' --compressed")
            }
        }

        @Test("counters and timers by method, endpoint name and status class, with a prefix")
        func metrics() async throws {
            try await withDocServer { baseURL, _ in
let metrics = TestMetrics()   // swift-metrics' MetricsTestKit; in production, your backend's factory
                let measured = Client(baseURL: baseURL, middlewares: [.metrics(factory: metrics, prefix: "shop.")])
                _ = try await measured.send(GetUser(id: 1))
                // shop.http.client.requests{method="GET", endpoint="GetUser", status_class="2xx"} 1
                let requests = metrics.counters(label: "shop.http.client.requests")
                #expect(requests.count == 1)
                let dimensions = Dictionary(uniqueKeysWithValues: try #require(requests.first).dimensions.map { ($0.0, $0.1) })
                #expect(dimensions == ["method": "GET", "endpoint": "GetUser", "status_class": "2xx"])
                #expect(requests.first?.totalValue == 1)
                #expect(metrics.timers(label: "shop.http.client.request.duration").count == 1)
            }
        }

        @Test("a client span per request under the caller's span, its context injected into the request")
        func traces() async throws {
            try await withDocServer { baseURL, _ in
let tracer = InMemoryTracer()   // swift-distributed-tracing's InMemoryTracing; in production, your tracer
                let traced = Client(baseURL: baseURL, middlewares: [.tracing(tracer: tracer), .retry()])
                let user = try await tracer.withSpan("show profile") { _ in
                    try await traced.send(GetUser(id: 1))
                }
                print(user.name)   // Ada Lovelace, in a span "GET" under "show profile"
                #expect(user.name == "Ada Lovelace")
                let parent = try #require(tracer.finishedSpans.first { $0.operationName == "show profile" })
                let request = try #require(tracer.finishedSpans.first { $0.kind == .client })
                #expect(request.operationName == "GET" && request.parentSpanID == parent.spanID)
                #expect(request.attributes["http.response.status_code"]?.toSpanAttribute() == 200)
                #expect(request.attributes["parley.endpoint"]?.toSpanAttribute() == "GetUser")
                let injected = tracer.performedContextInjections.compactMap { $0.values[InMemoryTracer.spanIDKey] }
                #expect(injected == [request.spanID])
            }
        }
    }
}
