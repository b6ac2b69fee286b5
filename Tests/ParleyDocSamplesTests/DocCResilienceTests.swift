// swift-format-ignore-file
// Laid out line for line as the swift blocks of the article it compiles (scripts/check-docs).
import Foundation
import Parley
import ParleyAsyncHTTPClient
import ParleyDemoServer
import Testing

// The Swift blocks of Sources/Parley/Parley.docc/Resilience.md, compiled and run against the demo server.
enum DocCResilience {
    struct Flaky: Endpoint {
        typealias Response = JSONValue
        let key: String
        var path: Path { "/flaky" }
        var query: Query { ["key": key, "failures": "2"] }
    }

    struct TokenReply: Decodable, Sendable {
        let accessToken: String
        let expiresIn: Int?

        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
            case expiresIn = "expires_in"
        }
    }

    struct IssueToken: Endpoint {
        typealias Response = TokenReply
        var method: HTTPRequest.Method { .post }
        var path: Path { "/auth/token" }
    }

    struct DemoTokens: AccessTokenProvider {
        let tokenClient: Client   // without the auth middleware: a refresh must not wait for itself

        func token(replacing stale: AccessToken?) async throws -> AccessToken {
            let reply = try await tokenClient.send(IssueToken())
            return AccessToken(reply.accessToken, expiresIn: reply.expiresIn.map { .seconds($0) })
        }
    }

    struct WhoAmI: Endpoint {
        typealias Response = [String: String]
        var path: Path { "/auth/me" }
    }

    struct RevokeToken: Endpoint {
        typealias Response = Void
        var method: HTTPRequest.Method { .post }
        var path: Path { "/auth/rotate" }
    }

    struct IssueScopedToken: Endpoint {
        typealias Response = TokenReply
        let scopes: [String]
        var method: HTTPRequest.Method { .post }
        var path: Path { "/auth/token" }
        var query: Query { ["scope": scopes.joined(separator: " ")] }
    }

    struct WriteCheck: Endpoint {
        typealias Response = [String: String]
        var path: Path { "/auth/write" }   // needs the scope "write"; the demo server's tokens have "read" by default
    }

    actor ScopedTokens: AccessTokenProvider {
        let tokenClient: Client
        private var held: Set<String> = ["read"]

        init(tokenClient: Client) {
            self.tokenClient = tokenClient
        }

        nonisolated var stepsUpScopes: Bool { true }

        func token(replacing stale: AccessToken?) async throws -> AccessToken {
            try await token(for: AccessTokenRequest(reason: .refresh, stale: stale))
        }

        func token(for request: AccessTokenRequest) async throws -> AccessToken {
            // The scopes held and those the server's challenge names: a step-up asks for the union, a refresh keeps it.
            held.formUnion(request.scopes)
            let reply = try await tokenClient.send(IssueScopedToken(scopes: held.sorted()))
            return AccessToken(reply.accessToken, expiresIn: reply.expiresIn.map { .seconds($0) })
        }
    }

    struct Hops: Endpoint {
        typealias Response = JSONValue
        let count: Int
        var path: Path { "/redirect/chain/\(count)" }
    }

    struct Bomb: Endpoint {
        typealias Response = Data
        var path: Path { "/gzip/bomb" }
    }

    struct BasicUser: Endpoint {
        typealias Response = [String: String]
        var path: Path { "/auth/basic" }
    }

    struct KeyCheck: Endpoint {
        typealias Response = [String: String]
        var path: Path { "/auth/key" }
    }
}

extension DocCResilience {
    @Suite("DocC: Resilience", .timeLimit(.minutes(1)))
    struct Examples {
        @Test("retries with a policy, a deadline and onRetry")
        func retries() async throws {
            try await withDocServer { baseURL, _ in
                let client = Client(
                    baseURL: baseURL,
                    middlewares: [
                        .retry(RetryPolicy(maxAttempts: 4, initialBackoff: .milliseconds(100), deadline: .seconds(20))) { retry in
                            print(retry)   // Flaky attempt 1 failed (503); attempt 2 in 0.042 s
                        }
                    ],
                    configuration: Client.Configuration(timeout: .seconds(30))
                )
                let answer = try await client.send(Flaky(key: "retry-example"))
                print(answer["attempts"]?.intValue ?? 0)   // 3
                #expect(answer["attempts"]?.intValue == 3)
            }
        }

        @Test("bearer tokens refreshed after a 401; Basic credentials and API keys")
        func auth() async throws {
            try await withDocServer { baseURL, _ in
                let tokenClient = Client(baseURL: baseURL, configuration: Client.Configuration(timeout: .seconds(10)))
                let api = Client(baseURL: baseURL, middlewares: [.bearerAuth(DemoTokens(tokenClient: tokenClient))])
                print(try await api.send(WhoAmI())["token"] ?? "")   // 1
                try await tokenClient.send(RevokeToken())
                print(try await api.send(WhoAmI())["token"] ?? "")   // 2: the server said 401, the token was refreshed, the call replayed
                #expect(try await api.send(WhoAmI())["token"] == "2")
let writer = Client(baseURL: baseURL, middlewares: [.bearerAuth(ScopedTokens(tokenClient: tokenClient))])
print(try await writer.send(WriteCheck())["scope"] ?? "")   // read write: a 403 for "write", a token with both, replayed
                #expect(try await writer.send(WriteCheck())["scope"] == "read write")
let discovery = OAuthDiscovery(using: tokenClient)
let resource = try await discovery.protectedResource(baseURL.appending(path: "auth/write"))
let issuer = try await discovery.authorizationServer(resource.authorizationServers[0])
print(issuer.tokenEndpoint ?? "")   // http://127.0.0.1:…/auth/token
                #expect(issuer.tokenEndpoint == baseURL.absoluteString + "/auth/token")

let password = "Analytical:Engine ✓ 1843"   // the demo server's password for "ada" at /auth/basic
let apiKey = "pk_demo/+=&?#% 42"             // and its API key at /auth/key
                let basic = Client(baseURL: baseURL, middlewares: [.basicAuth(username: "ada", password: password)])
                let keyed = Client(baseURL: baseURL, middlewares: [.apiKey(apiKey)])
                let queried = Client(baseURL: baseURL, middlewares: [.apiKey(apiKey, queryItem: "api_key")])
                #expect(try await basic.send(BasicUser())["user"] == "ada")
                #expect(try await keyed.send(KeyCheck())["via"] == "header")
                #expect(try await queried.send(KeyCheck())["via"] == "query")
                let wrong = Client(baseURL: baseURL, middlewares: [.basicAuth(username: "ada", password: "guess")])
                let refused = await #expect(throws: ParleyError.self) { try await wrong.send(BasicUser()) }
                #expect(refused?.kind == .unacceptableStatus)
                #expect(refused?.status?.code == 401)
            }
        }

        @Test("redirects within the policy are followed, beyond it refused")
        func redirects() async throws {
            let server = try await DemoServer.start()
            defer { Task { await server.stop() } }
            let baseURL = try #require(URL(string: server.baseURL))
            let cautious = Client(baseURL: baseURL, configuration: Client.Configuration(redirects: RedirectPolicy(maxRedirects: 2)))
            print(try await cautious.send(Hops(count: 2))["path"]?.stringValue ?? "")   // /echo
            do {
                _ = try await cautious.send(Hops(count: 3))
            } catch {
                print(error.kind)   // redirect
            }
            #expect(try await cautious.send(Hops(count: 2))["path"]?.stringValue == "/echo")
            let thrown = await #expect(throws: ParleyError.self) { try await cautious.send(Hops(count: 3)) }
            #expect(thrown?.kind == .redirect)
        }

        @Test("limits: a decompression bomb fails fast with bodyTooLarge")
        func limits() async throws {
            let server = try await DemoServer.start()
            defer { Task { await server.stop() } }
            let baseURL = try #require(URL(string: server.baseURL))
            let bounded = Client(
                baseURL: baseURL,
                configuration: Client.Configuration(
                    timeout: .seconds(30),
                    maxResponseBodySize: 8 << 20,
                    decompression: ResponseDecompression(maxSize: 64 << 20, maxRatio: 50),
                    maxConcurrentRequests: 16
                )
            )
            do {
                _ = try await bounded.send(Bomb())
            } catch {
                print(error.kind)   // bodyTooLarge
            }
            let thrown = await #expect(throws: ParleyError.self) { try await bounded.send(Bomb()) }
            #expect(thrown?.kind == .bodyTooLarge)
        }
    }
}
