import Foundation
import Parley
import Testing

@testable import ParleyTestSupport

@Suite("Requests on the wire")
struct RequestBuildingTests {
    @Test("path segments and query items reach the server intact", arguments: TransportKind.allCases)
    func pathAndQuery(transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            let name = "a/b?c#d ü"
            let echo = try await client.send(
                EchoEndpoint(path: "/echo/files/\(name)", query: ["q": "a b+c&d=e", "u": "ü€"])
            )
            #expect(echo.path == "/echo/files/a%2Fb%3Fc%23d%20%C3%BC")
            #expect(echo.queryItems == [["q", "a b+c&d=e"], ["u", "ü€"]])
        }
    }

    @Test("a base URL path prefix is kept", arguments: TransportKind.allCases)
    func basePath(transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, server in
            let prefixed = Client(baseURL: try #require(URL(string: server.baseURL + "/echo/")), transport: client.transport)
            let echo = try await prefixed.send(EchoEndpoint(path: "/v2/users"))
            #expect(echo.path == "/echo/v2/users")
        }
    }

    @Test("default headers apply; an endpoint's header of the same name overrides them", arguments: TransportKind.allCases)
    func headers(transport: TransportKind) async throws {
        try await withDemoClient(transport, headers: ["User-Agent": "parley-tests", "X-Shared": "client", "X-Client": "1"]) {
            client,
            _ in
            let echo = try await client.send(EchoEndpoint(headers: ["x-shared": "endpoint", "X-Endpoint": "2"]))
            #expect(echo.header("user-agent") == ["parley-tests"])
            #expect(echo.header("x-shared") == ["endpoint"])
            #expect(echo.header("x-client") == ["1"])
            #expect(echo.header("x-endpoint") == ["2"])
        }
    }

    struct Payload: Codable, Sendable, Equatable {
        let name: String
        let createdAt: Date
    }

    @Test("JSON bodies use the client's encoder unless the body brings its own", arguments: TransportKind.allCases)
    func jsonBody(transport: TransportKind) async throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let payload = Payload(name: "Ada", createdAt: Date(timeIntervalSince1970: 0))
        try await withDemoClient(transport, configuration: .init(jsonEncoder: encoder)) { client, _ in
            let echo = try await client.send(EchoEndpoint(method: .post, body: .json(payload)))
            #expect(echo.method == "POST")
            #expect(echo.header("content-type") == ["application/json"])
            #expect(echo.body?.contains("\"createdAt\":\"1970-01-01T00:00:00Z\"") == true)

            let secondsEncoder = JSONEncoder()
            secondsEncoder.dateEncodingStrategy = .secondsSince1970
            let own = try await client.send(EchoEndpoint(method: .put, body: .json(payload, encoder: secondsEncoder)))
            #expect(own.body?.contains("\"createdAt\":0") == true)
        }
    }

    @Test("form, bytes, text and empty bodies", arguments: TransportKind.allCases)
    func otherBodies(transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            let form = try await client.send(
                EchoEndpoint(method: .post, body: .form(["name": "Ada Lovelace", "note": "a+b&c=d"]))
            )
            #expect(form.header("content-type") == ["application/x-www-form-urlencoded"])
            #expect(form.body == "name=Ada+Lovelace&note=a%2Bb%26c%3Dd")

            let bytes = Data([0, 1, 2, 255])
            let raw = try await client.send(EchoEndpoint(method: .post, body: .bytes(bytes, contentType: "application/x-custom")))
            #expect(raw.header("content-type") == ["application/x-custom"])
            #expect(raw.bodyBase64 == bytes.base64EncodedString())
            #expect(raw.bodyLength == 4)

            let text = try await client.send(EchoEndpoint(method: .patch, body: .text("hello ü")))
            #expect(text.body == "hello ü")

            let explicit = try await client.send(
                EchoEndpoint(method: .post, headers: ["Content-Type": "application/vnd.api+json"], body: .json(["a": 1]))
            )
            #expect(explicit.header("content-type") == ["application/vnd.api+json"])

            let none = try await client.send(EchoEndpoint(method: .delete))
            #expect(none.bodyLength == 0)
            #expect(none.header("content-type").isEmpty)
        }
    }
}
