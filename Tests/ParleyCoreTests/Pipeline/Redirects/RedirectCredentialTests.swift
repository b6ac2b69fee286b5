import Foundation
import HTTPTypes
import Parley
import ParleyDemoServer
import Testing

@testable import ParleyTestSupport

/// Whatever an auth middleware adds, and whatever the redirect policy names, stays with the first origin: two demo
/// servers on 127.0.0.1 are two origins (their ports differ), and the second one's `/echo` shows what it received.
@Suite("Redirects: credentials stay with their origin", .timeLimit(.minutes(1)))
struct RedirectCredentialTests {
    static let key = "k-s3cret-42"

    /// Runs `body` with a client for one demo server and a second demo server (another origin).
    private func withTwoOrigins(
        _ transport: TransportKind,
        headers: Headers = [:],
        middlewares: [any ClientMiddleware],
        configuration: Client.Configuration = Client.Configuration(),
        _ body: (Client, DemoServer) async throws -> Void
    ) async throws {
        let other = try await DemoServer.start()
        do {
            try await withDemoClient(transport, headers: headers, middlewares: middlewares, configuration: configuration) {
                client,
                _ in
                try await body(client, other)
            }
            await other.stop()
        } catch {
            await other.stop()
            throw error
        }
    }

    /// A redirect to `target` (absolute, or a path on the first origin).
    private func redirect(to target: String) -> EchoEndpoint {
        EchoEndpoint(path: "/redirect", query: ["to": target])
    }

    @Test(".apiKey's X-API-Key is not sent to another origin, and is on the same one", arguments: TransportKind.allCases)
    func apiKeyHeader(_ transport: TransportKind) async throws {
        try await withTwoOrigins(transport, middlewares: [.apiKey(Self.key)]) { client, other in
            let away = try await client.send(redirect(to: other.baseURL + "/echo"))
            #expect(away.header("x-api-key").isEmpty)
            let home = try await client.send(redirect(to: "/echo"))
            #expect(home.header("x-api-key") == [Self.key])
        }
    }

    @Test("an API key in a header of any name is not sent to another origin", arguments: TransportKind.allCases)
    func apiKeyCustomHeader(_ transport: TransportKind) async throws {
        try await withTwoOrigins(transport, middlewares: [.apiKey(Self.key, header: "Api-Token")]) { client, other in
            let away = try await client.send(redirect(to: other.baseURL + "/echo"))
            #expect(away.header("api-token").isEmpty)
            let home = try await client.send(redirect(to: "/echo"))
            #expect(home.header("api-token") == [Self.key])
        }
    }

    /// The first server copies the key into its `Location` (as a server echoing the request's query would): the hop
    /// to the other origin goes without it, and keeps the other query items.
    @Test("an API key query item carried in a Location to another origin is removed", arguments: TransportKind.allCases)
    func apiKeyQueryItem(_ transport: TransportKind) async throws {
        try await withTwoOrigins(transport, middlewares: [.apiKey(Self.key, queryItem: "api_key")]) { client, other in
            let away = try await client.send(redirect(to: other.baseURL + "/echo?page=2&api_key=\(Self.key)&sort=asc"))
            #expect(away.path == "/echo")
            #expect(!away.query.contains(Self.key), "\(away.query)")
            #expect(away.queryItems == [["page", "2"], ["sort", "asc"]])
            let only = try await client.send(redirect(to: other.baseURL + "/echo?api_key=\(Self.key)"))
            #expect(!only.query.contains(Self.key), "\(only.query)")
            let home = try await client.send(redirect(to: "/echo?api_key=\(Self.key)"))
            #expect(home.query.contains(Self.key))
        }
    }

    /// The policy lists no credential field at all: the Authorization the auth middleware added is removed anyway.
    @Test(
        "Basic and Bearer credentials are not sent to another origin, whatever the policy lists",
        arguments: TransportKind.allCases
    )
    func basicAndBearer(_ transport: TransportKind) async throws {
        var configuration = Client.Configuration()
        configuration.redirects.credentialHeaderFields = []
        let basic: any ClientMiddleware = .basicAuth(username: "ada", password: "pa55word")
        let bearer: any ClientMiddleware = .bearerAuth { _ in AccessToken("t0ken") }
        for middleware in [basic, bearer] {
            try await withTwoOrigins(transport, middlewares: [middleware], configuration: configuration) { client, other in
                let away = try await client.send(redirect(to: other.baseURL + "/echo"))
                #expect(away.header("authorization").isEmpty, "\(type(of: middleware))")
                let home = try await client.send(redirect(to: "/echo"))
                #expect(home.header("authorization").count == 1, "\(type(of: middleware))")
            }
        }
    }

    @Test("the policy's credential fields and query items are configurable", arguments: TransportKind.allCases)
    func configurable(_ transport: TransportKind) async throws {
        let session = try #require(HTTPField.Name("X-Session"))
        let headers: Headers = ["X-Session": "sess-1", "X-API-Key": "default-header-key"]
        // By default, X-API-Key is a credential (even set as a default header) and X-Session is not.
        try await withTwoOrigins(transport, headers: headers, middlewares: []) { client, other in
            let away = try await client.send(redirect(to: other.baseURL + "/echo?sig=abc"))
            #expect(away.header("x-api-key").isEmpty)
            #expect(away.header("x-session") == ["sess-1"])
            #expect(away.queryItems == [["sig", "abc"]])
        }
        var configuration = Client.Configuration()
        configuration.redirects.credentialHeaderFields.insert(session)
        configuration.redirects.credentialQueryItems = ["sig"]
        try await withTwoOrigins(transport, headers: headers, middlewares: [], configuration: configuration) { client, other in
            let away = try await client.send(redirect(to: other.baseURL + "/echo?sig=abc&page=1"))
            #expect(away.header("x-session").isEmpty)
            #expect(away.header("x-api-key").isEmpty)
            #expect(away.queryItems == [["page", "1"]])
        }
    }
}
