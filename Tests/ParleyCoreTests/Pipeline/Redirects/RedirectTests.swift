import Foundation
import HTTPTypes
import OpenAPIRuntime
import Parley
import ParleyDemoServer
import Testing

@testable import ParleyTestSupport

@Suite("Redirects", .timeLimit(.minutes(1)))
struct RedirectTests {
    @Test("A chain of redirects within the limit is followed to its end", arguments: TransportKind.allCases)
    func chain(transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            let echo = try await client.send(EchoEndpoint(path: "/redirect/chain/5"))
            #expect(echo.path == "/echo")
        }
    }

    @Test("One hop more than the limit fails with .redirect", arguments: TransportKind.allCases)
    func tooMany(transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            let error = await expectParleyError(.redirect) { try await client.send(EchoEndpoint(path: "/redirect/chain/6")) }
            #expect(error?.message.contains("5") == true)
            #expect(error?.status?.code == 302)
            var configuration = Client.Configuration()
            configuration.redirects.maxRedirects = 6
            let wider = Client(baseURL: client.baseURL, transport: client.transport, configuration: configuration)
            let got1 = try await wider.send(EchoEndpoint(path: "/redirect/chain/6")).path
            #expect(got1 == "/echo")
        }
    }

    @Test("A loop is detected before the hop limit", arguments: TransportKind.allCases)
    func loop(transport: TransportKind) async throws {
        var configuration = Client.Configuration()
        configuration.redirects.maxRedirects = 50
        try await withDemoClient(transport, configuration: configuration) { client, _ in
            let error = await expectParleyError(.redirect) { try await client.send(EchoEndpoint(path: "/redirect/loop")) }
            #expect(error?.message.contains("loop") == true, "\(String(describing: error))")
        }
    }

    @Test("A 3xx without Location is the response, and fails validation as such", arguments: TransportKind.allCases)
    func noLocation(transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            let error = await expectParleyError(.unacceptableStatus) { try await client.send(EchoEndpoint(path: "/redirect")) }
            #expect(error?.status?.code == 302)
        }
    }

    @Test("RedirectPolicy.none returns the redirect itself", arguments: TransportKind.allCases)
    func none(transport: TransportKind) async throws {
        var configuration = Client.Configuration(acceptableStatusCodes: .codes(302))
        configuration.redirects = RedirectPolicy.none
        try await withDemoClient(transport, configuration: configuration) { client, _ in
            let (_, response) = try await client.response(for: GetVoid(path: "/redirect/chain/2"))
            #expect(response.status.code == 302)
            #expect(response.headerFields[.location] == "/redirect/chain/1")
        }
    }

    @Test("303 turns a POST into a GET without its body", arguments: TransportKind.allCases)
    func seeOther(transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            let post = EchoEndpoint(
                method: .post,
                path: "/redirect",
                query: ["to": "/echo/after", "status": "303"],
                body: .json(["a": 1])
            )
            let echo = try await client.send(post)
            #expect(echo.method == "GET")
            #expect(echo.path == "/echo/after")
            #expect(echo.bodyLength == 0)
            #expect(echo.header("content-type").isEmpty)
        }
    }

    @Test("302 after a POST becomes a GET; after a PUT it keeps the method and body", arguments: TransportKind.allCases)
    func found(transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            let post = EchoEndpoint(method: .post, path: "/redirect", query: ["to": "/echo", "status": "302"], body: .text("x"))
            let got2 = try await client.send(post).method
            #expect(got2 == "GET")
            let put = EchoEndpoint(method: .put, path: "/redirect", query: ["to": "/echo", "status": "302"], body: .text("kept"))
            let echo = try await client.send(put)
            #expect(echo.method == "PUT")
            #expect(echo.body == "kept")
        }
    }

    @Test("307 and 308 keep the method and the body", arguments: TransportKind.allCases, [307, 308])
    func temporary(transport: TransportKind, status: Int) async throws {
        try await withDemoClient(transport) { client, _ in
            let post = EchoEndpoint(
                method: .post,
                path: "/redirect",
                query: ["to": "/echo/moved", "status": "\(status)"],
                body: .json(["a": 1])
            )
            let echo = try await client.send(post)
            #expect(echo.method == "POST")
            #expect(echo.path == "/echo/moved")
            #expect(echo.body == #"{"a":1}"#)
            #expect(echo.header("content-type") == ["application/json"])
        }
    }

    @Test("307 with a body that can be read once fails with .redirect", arguments: TransportKind.allCases)
    func temporaryWithStream(transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            let once = HTTPBody([UInt8]("once".utf8), length: .known(4), iterationBehavior: .single)
            let post = EchoEndpoint(
                method: .post,
                path: "/redirect",
                query: ["to": "/echo", "status": "307"],
                body: .stream(once)
            )
            let error = await expectParleyError(.redirect) { try await client.send(post) }
            #expect(error?.message.contains("read only once") == true)
        }
    }

    @Test(
        "Credentials stay within the origin: removed on a hop to another port, kept on the same",
        arguments: TransportKind.allCases
    )
    func crossOrigin(transport: TransportKind) async throws {
        let other = try await DemoServer.start()
        defer { Task { await other.stop() } }
        let secrets: Headers = [
            "Authorization": "Bearer s3cret", "Cookie": "session=1", "Proxy-Authorization": "Basic eA==", "X-Kept": "yes",
        ]
        try await withDemoClient(transport, headers: secrets) { client, _ in
            let away = EchoEndpoint(path: "/redirect", query: ["to": other.baseURL + "/echo"])
            let there = try await client.send(away)
            #expect(there.header("authorization").isEmpty)
            #expect(there.header("cookie").isEmpty)
            #expect(there.header("proxy-authorization").isEmpty)
            #expect(there.header("x-kept") == ["yes"])
            let home = try await client.send(EchoEndpoint(path: "/redirect", query: ["to": "/echo"]))
            #expect(home.header("authorization") == ["Bearer s3cret"])
            #expect(home.header("cookie") == ["session=1"])
            // Away and back again: once removed, credentials stay removed.
            let back = EchoEndpoint(
                path: "/redirect",
                query: ["to": other.baseURL + "/redirect?to=" + client.baseURL.absoluteString + "/echo"]
            )
            let returned = try await client.send(back)
            #expect(returned.header("authorization").isEmpty)
        }
    }

    @Test("A Location that is not http(s) fails with .redirect", arguments: TransportKind.allCases)
    func badScheme(transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            let error = await expectParleyError(.redirect) {
                try await client.send(EchoEndpoint(path: "/redirect", query: ["to": "ftp://127.0.0.1/file"]))
            }
            #expect(error?.message.contains("not an http or https URL") == true)
        }
    }
}

/// The https → http rule needs a TLS origin; the follower's decision is checked on its own, with the hop answered
/// by a closure standing in for an https server.
@Suite("Redirect downgrade")
struct RedirectDowngradeTests {
    struct Home: Endpoint {
        typealias Response = Void
        var path: Path { "/start" }
    }

    /// A transport that answers the https origin with a redirect to plain http, and counts what it was asked.
    struct DowngradingTransport: ClientTransport {
        let asked = LockedBox<[String]>([])
        func send(
            _ request: HTTPRequest,
            body: HTTPBody?,
            baseURL: URL,
            operationID: String
        ) async throws -> (HTTPResponse, HTTPBody?) {
            let url = request.scheme.map { "\($0)://\(request.authority ?? "")\(request.path ?? "")" } ?? ""
            asked.mutate { $0.append(url) }
            if request.scheme == "https" {
                return (HTTPResponse(status: .found, headerFields: [.location: "http://127.0.0.1:9/landing"]), nil)
            }
            return (HTTPResponse(status: .ok), nil)
        }
    }

    @Test("https → http is refused by default and followed when allowed")
    func downgrade() async throws {
        let transport = DowngradingTransport()
        let url = try #require(URL(string: "https://127.0.0.1:8443"))
        let strict = Client(baseURL: url, transport: transport)
        let error = await expectParleyError(.redirect) { try await strict.send(Home()) }
        #expect(error?.message.contains("allowsDowngrade") == true)
        #expect(transport.asked.value == ["https://127.0.0.1:8443/start"])
        var configuration = Client.Configuration()
        configuration.redirects.allowsDowngrade = true
        let lenient = Client(baseURL: url, transport: transport, configuration: configuration)
        try await lenient.send(Home())
        #expect(transport.asked.value.last == "http://127.0.0.1:9/landing")
    }
}
