import Foundation
import Parley
import Testing

@testable import ParleyTestSupport

/// The address of an httpbin server that `scripts/test` starts (an independent peer, not our demo server).
enum HTTPBin {
    static let url: URL? = ProcessInfo.processInfo.environment["PARLEY_HTTPBIN_URL"].flatMap(URL.init(string:))
}

/// What httpbin's `/anything` reports about a request.
struct HTTPBinEcho: Decodable, Sendable {
    let args: [String: String]
    let form: [String: String]
    let headers: [String: String]
    let json: JSONValue?
    let method: String
    let url: String
    let data: String
}

struct Anything: Endpoint {
    typealias Response = HTTPBinEcho
    var method: HTTPRequest.Method = .get
    var path: Path = "/anything"
    var query: Query = []
    var headers: Headers = [:]
    var body: RequestBody = .none
}

@Suite("Independent peer: httpbin", .enabled(if: HTTPBin.url != nil, "scripts/test starts httpbin and sets PARLEY_HTTPBIN_URL"))
struct HTTPBinTests {
    func client(
        _ transport: TransportKind,
        headers: Headers = [:],
        configuration: Client.Configuration = .init()
    ) throws -> Client {
        Client(
            baseURL: try #require(HTTPBin.url),
            transport: transport.makeTransport(),
            headers: headers,
            configuration: configuration
        )
    }

    @Test("query items arrive decoded exactly as sent", arguments: TransportKind.allCases)
    func query(transport: TransportKind) async throws {
        let client = try client(transport)
        let echo = try await client.send(Anything(query: ["q": "a b+c&d=e", "u": "ü€", "empty": ""]))
        #expect(echo.args == ["q": "a b+c&d=e", "u": "ü€", "empty": ""])
        try await client.shutdown()
    }

    @Test("an interpolated path segment stays one segment", arguments: TransportKind.allCases)
    func pathSegment(transport: TransportKind) async throws {
        let client = try client(transport)
        let name = "../etc/passwd"
        let echo = try await client.send(Anything(path: "/anything/files/\(name)"))
        // Sent as /anything/files/..%2Fetc%2Fpasswd: the peer still sees it under /anything/files/.
        #expect(echo.url.contains("/anything/files/"))
        #expect(echo.url.hasSuffix("passwd"))
        try await client.shutdown()
    }

    @Test("form, JSON and raw bodies are parsed by the peer as sent", arguments: TransportKind.allCases)
    func bodies(transport: TransportKind) async throws {
        let client = try client(transport)
        let form = try await client.send(Anything(method: .post, body: .form(["name": "Ada Lovelace", "note": "a+b&c=d ü"])))
        #expect(form.form == ["name": "Ada Lovelace", "note": "a+b&c=d ü"])
        #expect(form.headers["Content-Type"] == "application/x-www-form-urlencoded")

        let json = try await client.send(Anything(method: .put, body: .json(["name": "Ada", "tags": "x"])))
        #expect(json.json == .object(["name": .string("Ada"), "tags": .string("x")]))

        let raw = try await client.send(Anything(method: .patch, body: .text("plain ü")))
        #expect(raw.data == "plain ü")
        try await client.shutdown()
    }

    @Test("default headers, with an endpoint override", arguments: TransportKind.allCases)
    func headers(transport: TransportKind) async throws {
        let client = try client(transport, headers: ["X-Shared": "client", "X-Client": "1"])
        let echo = try await client.send(Anything(headers: ["x-shared": "endpoint"]))
        #expect(echo.headers["X-Shared"] == "endpoint")
        #expect(echo.headers["X-Client"] == "1")
        try await client.shutdown()
    }

    struct Status: Endpoint {
        typealias Response = Void
        let code: Int
        var path: Path { "/status/\(code)" }
    }

    struct BasicAuth: Endpoint {
        typealias Response = JSONValue
        var headers: Headers
        var path: Path { "/basic-auth/ada/secret" }
    }

    struct Delay: Endpoint {
        typealias Response = JSONValue
        var path: Path { "/delay/5" }
        var timeout: Duration? { .milliseconds(300) }
    }

    struct Bytes: Endpoint {
        typealias Response = Data
        let count: Int
        var path: Path { "/bytes/\(count)" }
    }

    struct SlideShow: Endpoint {
        typealias Response = JSONValue
        var path: Path { "/json" }
        var validators: [ResponseValidator] {
            [.requiredJSONKeys(["slideshow.title", "slideshow.slides[].title", "slideshow.slides[].price"])]
        }
    }

    @Test("status, auth, timeouts, bytes and validation against the peer", arguments: TransportKind.allCases)
    func behaviour(transport: TransportKind) async throws {
        let client = try client(transport)
        try await client.send(Status(code: 204))
        let unavailable = await expectParleyError(.unacceptableStatus) { try await client.send(Status(code: 503)) }
        #expect(unavailable?.status?.code == 503)

        let credentials = Data("ada:secret".utf8).base64EncodedString()
        let authorized = try await client.send(BasicAuth(headers: ["Authorization": "Basic \(credentials)"]))
        #expect(authorized["authenticated"] == .bool(true))
        let denied = await expectParleyError(.unacceptableStatus) { try await client.send(BasicAuth(headers: [:])) }
        #expect(denied?.status?.code == 401)

        await expectParleyError(.timeout) { try await client.send(Delay()) }
        let bytes = try await client.send(Bytes(count: 4096))
        #expect(bytes.count == 4096)

        let slides = await expectParleyError(.validation) { try await client.send(SlideShow()) }
        #expect(slides?.message == "missing required JSON keys: slideshow.slides[0].price, slideshow.slides[1].price")
        try await client.shutdown()
    }
}
