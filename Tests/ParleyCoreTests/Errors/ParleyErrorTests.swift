import Foundation
import Parley
import ParleyAsyncHTTPClient
import ParleyDemoServer
import ParleyTesting
import Testing

@testable import ParleyTestSupport

@Suite("Errors", .timeLimit(.minutes(2)))
struct ParleyErrorTests {
    @Test("an error is a value: a changed copy leaves the original as it was (its parts are boxed, not shared)")
    func valueSemantics() {
        let original = ParleyError(.transport, "first", underlying: CancellationError())
        var copy = original
        copy.kind = .timeout
        copy.message = "second"
        copy.attempts = 3
        copy.body = Data("excerpt".utf8)
        copy.serverPublicKeyPins = ["pin"]
        #expect(original.kind == .transport && original.message == "first")
        #expect(original.attempts == nil && original.body == nil && original.serverPublicKeyPins == nil)
        #expect(original.underlying is CancellationError)
        #expect(copy.kind == .timeout && copy.message == "second" && copy.attempts == 3)
        #expect(copy.body == Data("excerpt".utf8) && copy.serverPublicKeyPins == ["pin"])
        #expect(copy.underlying is CancellationError)
        #expect(copy.description.contains("second"))
    }

    @Test(
        "a bad base URL is an invalid request, refused before anything is sent",
        arguments: [
            "ftp://example.com", "/relative/path", "http://", "http://example.com/?q=1", "http://user:secret@example.com",
        ]
    )
    func badBaseURL(text: String) async throws {
        let transport = InMemoryTransport()
        let client = Client(baseURL: try #require(URL(string: text)), transport: transport)
        let error = await expectParleyError(.invalidRequest) { try await client.send(GetUser(id: 1)) }
        #expect(error?.description.contains("base URL") == true)
        #expect(transport.requests.isEmpty)
    }

    @Test(
        "an illegal header name or value is refused before anything is sent",
        arguments: [
            ("X-Bad", "line\r\nInjected: yes"),
            ("X-Bad", "nul\u{0}byte"),
            ("Bad Name", "value"),
            ("", "value"),
            ("X-Ünïcode", "value"),
        ]
    )
    func illegalHeader(name: String, value: String) async throws {
        let transport = InMemoryTransport()
        transport.route(nil, "*") { _ in .text("ok") }
        let client = Client(baseURL: try #require(URL(string: "http://127.0.0.1:1")), transport: transport)
        let endpoint = EchoEndpoint(headers: Headers(dictionaryLiteral: (name, value)))
        let error = await expectParleyError(.invalidRequest) { try await client.send(endpoint) }
        #expect(error?.description.contains("header") == true)
        #expect(error?.request?.url == "http://127.0.0.1:1/echo")
        #expect(transport.requests.isEmpty)
        // The same header on the client fails the same way.
        let clientLevel = Client(
            baseURL: client.baseURL,
            transport: transport,
            headers: Headers(dictionaryLiteral: (name, value))
        )
        await expectParleyError(.invalidRequest) { try await clientLevel.send(EchoEndpoint()) }
        #expect(transport.requests.isEmpty)
    }

    @Test(
        "a path whose interpolated value reads as a dot segment is refused, nothing sent",
        arguments: [
            "..", ".",
        ]
    )
    func dotSegments(value: String) async throws {
        let transport = InMemoryTransport()
        transport.route(nil, "*") { _ in .text("ok") }
        let client = Client(baseURL: try #require(URL(string: "http://127.0.0.1:1")), transport: transport)
        let whole = await expectParleyError(.invalidRequest) { try await client.send(EchoEndpoint(path: "/files/\(value)/x")) }
        #expect(whole?.description.contains("refusing to send it") == true)
        await expectParleyError(.invalidRequest) { try await client.send(EchoEndpoint(path: "/files/.\(".")")) }
        #expect(transport.requests.isEmpty)
        // Literal dot segments are the author's own and go out as written; "..x" is an ordinary name.
        _ = try await client.send(GetText(path: "/files/../x"))
        _ = try await client.send(GetText(path: "/files/\("..x")"))
        #expect(transport.requests.count == 2)
    }

    @Test("a body that cannot be encoded is an encoding error, nothing sent")
    func encodingFailure() async throws {
        let transport = InMemoryTransport()
        let client = Client(baseURL: try #require(URL(string: "http://127.0.0.1:1")), transport: transport)
        let error = await expectParleyError(.encoding) {
            try await client.send(EchoEndpoint(method: .post, body: .json(["x": Double.nan])))
        }
        #expect(error?.description.contains("EchoEndpoint") == true)
        #expect(transport.requests.isEmpty)
    }

    @Test("connection refused is a transport error", arguments: TransportKind.allCases)
    func connectionRefused(transport: TransportKind) async throws {
        let client = Client(baseURL: try await DemoServer.closedPortURL(), transport: transport.makeTransport())
        let error = await expectParleyError(.transport) { try await client.send(GetUser(id: 1)) }
        #expect(error?.request?.description.contains("GET http://127.0.0.1:") == true)
    }

    @Test("a failed TLS handshake is a transport error", arguments: TransportKind.allCases)
    func tlsFailure(transport: TransportKind) async throws {
        try await withDemoClient(transport) { _, server in
            // The demo server speaks plain HTTP, so a TLS ClientHello gets no valid answer.
            // The handshake fails at once on an idle machine. AsyncHTTPClient counts the handshake in its connect
            // timeout, so a generous one keeps a starved machine from turning the failure into a `.timeout`.
            let tlsTransport: any ClientTransport =
                transport == .asyncHTTPClient
                ? AsyncHTTPClientTransport(configuration: AsyncHTTPClientTransport.configuration(connectTimeout: .seconds(60)))
                : transport.makeTransport()
            let https = Client(
                baseURL: try #require(URL(string: server.baseURL.replacingOccurrences(of: "http:", with: "https:"))),
                transport: tlsTransport
            )
            let error = await expectParleyError(.transport) { try await https.send(GetUser(id: 1)) }
            #expect(error?.request?.url.hasPrefix("https://127.0.0.1:") == true)
            try await https.shutdown()
        }
    }

    @Test("a connection closed mid-body is a transport error", arguments: TransportKind.allCases)
    func closedMidBody(transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            await expectParleyError(.transport) { try await client.send(GetData(path: "/close-mid-body")) }
        }
    }

    @Test(
        "a body larger than the limit fails with bodyTooLarge, with or without Content-Length",
        arguments: TransportKind.allCases
    )
    func bodyTooLarge(transport: TransportKind) async throws {
        try await withDemoClient(transport, configuration: .init(maxResponseBodySize: 1_000_000)) { client, _ in
            let declared = await expectParleyError(.bodyTooLarge) {
                try await client.send(GetData(path: "/bytes", query: ["n": "1000001"]))
            }
            #expect(declared?.description.contains("1000000") == true)
            await expectParleyError(.bodyTooLarge) {
                try await client.send(GetData(path: "/bytes", query: ["n": "1000001", "chunked": "true"]))
            }
            let allowed = try await client.send(GetData(path: "/bytes", query: ["n": "1000000", "chunked": "true"]))
            #expect(allowed.count == 1_000_000)
        }
    }

    @Test("the default limit is 32 MiB", arguments: TransportKind.allCases)
    func defaultLimit(transport: TransportKind) async throws {
        #expect(Client.Configuration().maxResponseBodySize == 32 * 1024 * 1024)
        try await withDemoClient(transport) { client, _ in
            await expectParleyError(.bodyTooLarge) {
                try await client.send(GetData(path: "/bytes", query: ["n": String(64 * 1024 * 1024), "chunked": "true"]))
            }
        }
    }

    @Test("every kind has a stable label and the description is one paragraph")
    func labels() {
        let kinds: [ParleyError.Kind] = [
            .invalidRequest, .encoding, .transport, .timeout, .cancelled, .unacceptableStatus, .decoding, .validation,
            .middleware, .bodyTooLarge,
        ]
        #expect(Set(kinds.map(\.label)).count == kinds.count)
        var error = ParleyError(.unacceptableStatus, "The server answered 500.")
        error.response = HTTPResponse(status: .internalServerError)
        error.body = Data("boom".utf8)
        #expect(
            error.description
                == "Parley unacceptableStatus error: The server answered 500. Response: 500 Internal Server Error. Body: boom"
        )
        #expect(!error.description.contains("\n"))
    }
}
