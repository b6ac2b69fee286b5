import Foundation
import Parley
import ParleyDemoServer
import Testing

@testable import ParleyTestSupport

/// Basic auth and API keys against the demo server, and what their errors show.
@Suite("Basic auth and API keys", .timeLimit(.minutes(1)))
struct CredentialAuthTests {
    /// The credentials the demo server's `/auth/basic` and `/auth/key` accept.
    static let user = DemoBasicAuth.user
    static let password = DemoBasicAuth.password
    static let key = "pk_demo/+=&?#% 42"

    struct BasicUser: Decodable { let user: String }
    struct KeyVia: Decodable { let via: String }

    @Test(
        "Basic credentials (UTF-8, a colon in the password) are accepted; wrong ones are not shown",
        arguments: TransportKind.allCases
    )
    func basic(transport: TransportKind) async throws {
        try await withDemoClient(transport, middlewares: [.basicAuth(username: Self.user, password: Self.password)]) {
            client,
            _ in
            let answer = try await client.send(Get<BasicUser>(path: "/auth/basic"))
            #expect(answer.user == "ada")
        }
        let wrong = "not the password 1843"
        try await withDemoClient(transport, middlewares: [.basicAuth(username: Self.user, password: wrong)]) { client, _ in
            let error = await expectParleyError(.unacceptableStatus) {
                try await client.send(Get<BasicUser>(path: "/auth/basic"))
            }
            #expect(error?.status == .unauthorized)
            #expect(error?.response?.headerFields[.wwwAuthenticate] == "Basic realm=\"parley-demo\", charset=\"UTF-8\"")
            #expect(error?.description.contains(wrong) == false)
        }
    }

    @Test("a username with ':' is rejected before sending, without showing the password")
    func badUsername() async throws {
        try await withDemoClient(.asyncHTTPClient, middlewares: [.basicAuth(username: "a:da", password: Self.password)]) {
            client,
            _ in
            let error = await expectParleyError(.invalidRequest) { try await client.send(Get<BasicUser>(path: "/auth/basic")) }
            #expect(error?.message.contains("contains ':'") == true)
            #expect(error?.description.contains(Self.password) == false)
            #expect(error?.response == nil)
        }
    }

    @Test("an API key in a header field or a query item is accepted", arguments: TransportKind.allCases)
    func apiKey(transport: TransportKind) async throws {
        try await withDemoClient(transport, middlewares: [.apiKey(Self.key)]) { client, _ in
            let answer = try await client.send(Get<KeyVia>(path: "/auth/key"))
            #expect(answer.via == "header")
        }
        try await withDemoClient(transport, middlewares: [.apiKey(Self.key, queryItem: "api_key")]) { client, _ in
            #expect(try await client.send(Get<KeyVia>(path: "/auth/key")).via == "query")
            // After the endpoint's own query items, percent-encoded like them.
            let echo = try await client.send(EchoEndpoint(query: ["a": "1 2"]))
            #expect(echo.queryItems == [["a", "1 2"], ["api_key", Self.key]])
            #expect(echo.query == "a=1%202&api_key=pk_demo%2F%2B%3D%26%3F%23%25%2042")
        }
        try await withDemoClient(transport, middlewares: [.apiKey("wrong")]) { client, _ in
            let error = await expectParleyError(.unacceptableStatus) { try await client.send(Get<KeyVia>(path: "/auth/key")) }
            #expect(error?.status == .unauthorized)
        }
    }

    @Test("a header name that is not a field name fails before sending")
    func badHeaderName() async throws {
        try await withDemoClient(.asyncHTTPClient, middlewares: [.apiKey(Self.key, header: "X API Key")]) { client, _ in
            let error = await expectParleyError(.invalidRequest) { try await client.send(Get<KeyVia>(path: "/auth/key")) }
            #expect(error?.description.contains(Self.key) == false)
        }
    }

    @Test("a transport failure's error does not show the key, password or token", arguments: TransportKind.allCases)
    func transportFailureRedaction(transport: TransportKind) async throws {
        let closed = try await DemoServer.closedPortURL()
        let token = "tok_\(UUID().uuidString)"
        let cases: [(middleware: any ClientMiddleware, secrets: [String])] = [
            (.apiKey(Self.key, queryItem: "api_key"), [Self.key, "pk_demo%2F%2B%3D%26%3F%23%25%2042"]),
            (.apiKey(Self.key), [Self.key]),
            (
                .basicAuth(username: Self.user, password: Self.password),
                [Self.password, Data("ada:\(Self.password)".utf8).base64EncodedString()]
            ),
            (.bearerAuth { _ in AccessToken(token) }, [token]),
        ]
        for (middleware, secrets) in cases {
            let client = Client(baseURL: closed, transport: transport.makeTransport(), middlewares: [middleware])
            let error = await expectParleyError(.transport) { try await client.send(Get<KeyVia>(path: "/auth/key")) }
            try await client.shutdown()
            let description = try #require(error?.description)
            #expect(description.contains(closed.absoluteString + "/auth/key"))
            for secret in secrets {
                #expect(!description.contains(secret), "\(description)")
                let underlying = error?.underlying.map { String(reflecting: $0) } ?? ""
                #expect(!underlying.contains(secret), "\(underlying)")
            }
        }
    }

    @Test("the static factories read as members in a [any ClientMiddleware] literal")
    func literal() {
        let chain: [any ClientMiddleware] = [
            .bearerAuth { _ in AccessToken("t") }, .basicAuth(username: "u", password: "p"), .apiKey("k"),
            .apiKey("k", queryItem: "key"),
        ]
        #expect(chain.count == 4)
        #expect(String(describing: AccessToken("secret-value", expiresIn: .seconds(60))).contains("secret-value") == false)
    }
}
