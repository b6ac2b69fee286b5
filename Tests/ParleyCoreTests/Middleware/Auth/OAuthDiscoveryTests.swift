import Foundation
import Parley
import ParleyDemoServer
import Testing

@testable import ParleyTestSupport

/// The OAuth-protected MCP server of the MCP Python SDK 2.3 that `scripts/start-peers` starts
/// (`peers/mcp2_oauth_peer.py`): its authorization server is at the root of its origin, its resource is `/mcp`.
enum OAuthPeer {
    static let mcpURL = ProcessInfo.processInfo.environment["PARLEY_MCP2_OAUTH_URL"].flatMap(URL.init(string:))
    static var isRunning: Bool { mcpURL != nil }
}

/// `GET <path>` of the OAuth peer, answering JSON, for what the tests read of it directly.
private struct PeerStats: Endpoint {
    typealias Response = [String: Int]
    var path: Path { "/stats" }
}

@Suite("OAuth discovery: RFC 9728 and RFC 8414 in the MCP specification's order", .timeLimit(.minutes(1)))
struct OAuthDiscoveryTests {
    @Test(
        "the SDK server: its 401 names the resource metadata, which names the issuer, whose metadata is its own",
        .enabled(if: OAuthPeer.isRunning)
    )
    func sdkServer() async throws {
        let mcp = try #require(OAuthPeer.mcpURL)
        let host = try #require(mcp.host)
        let port = try #require(mcp.port)
        let origin = try #require(URL(string: "http://\(host):\(port)"))
        let client = Client(
            baseURL: origin,
            transport: TransportKind.asyncHTTPClient.makeTransport(),
            configuration: Client.Configuration(timeout: .seconds(10))
        )
        // The challenge of an unauthenticated call, as BearerAuthMiddleware hands it to a provider.
        let refused = await expectParleyError(.unacceptableStatus) { try await client.send(Unauthenticated()) }
        let response = try #require(refused?.response)
        let challenge = try #require(AccessTokenRequest.rejection(by: response, stepsUp: false))
        #expect(challenge.reason == .rejected && challenge.error == "invalid_token")
        let named = try #require(challenge.resourceMetadata)
        #expect(named == "\(origin.absoluteString)/.well-known/oauth-protected-resource/mcp")

        let discovery = OAuthDiscovery(using: client)
        let resource = try await discovery.protectedResource(mcp, metadataURL: named)
        #expect(resource.resource == mcp.absoluteString)
        #expect(resource.authorizationServers == [origin.absoluteString])
        // Without the challenge's URL, the path-based well-known URL finds the same document.
        #expect(try await discovery.protectedResource(mcp) == resource)

        let server = try await discovery.authorizationServer(resource.authorizationServers[0])
        #expect(server.issuer == origin.absoluteString)
        #expect(server.tokenEndpoint == "\(origin.absoluteString)/token")
        #expect(server.authorizationEndpoint == "\(origin.absoluteString)/authorize")
        #expect(server.registrationEndpoint == "\(origin.absoluteString)/register")
        #expect(server.revocationEndpoint == "\(origin.absoluteString)/revoke")
        #expect(server.codeChallengeMethodsSupported == ["S256"])
        #expect(server.authorizationResponseIssParameterSupported == true)
        #expect(server.grantTypesSupported == ["authorization_code", "refresh_token"])
        #expect(try await client.send(PeerStats())["registrations"] != nil)
    }

    @Test(
        "an issuer that differs by a trailing slash is not the issuer: its endpoints are refused (RFC 8414 3.3)",
        .enabled(if: OAuthPeer.isRunning)
    )
    func issuerMismatch() async throws {
        let mcp = try #require(OAuthPeer.mcpURL)
        let host = try #require(mcp.host)
        let port = try #require(mcp.port)
        let origin = "http://\(host):\(port)"
        let client = Client(baseURL: try #require(URL(string: origin)), transport: TransportKind.asyncHTTPClient.makeTransport())
        let discovery = OAuthDiscovery(using: client)
        let error = await expectParleyError(.authentication) { try await discovery.authorizationServer(origin + "/") }
        #expect(error?.message.contains("names the issuer") == true)
        #expect(error?.message.contains("refusing to use its endpoints") == true)
    }

    @Test("the demo server: path-based resource metadata, then the issuer's RFC 8414 metadata", arguments: TransportKind.allCases)
    func demoServer(transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, server in
            let discovery = OAuthDiscovery(using: client)
            let resource = try await discovery.protectedResource(try #require(URL(string: server.baseURL + "/auth/write")))
            #expect(resource.authorizationServers == [server.baseURL])
            #expect(resource.scopesSupported == ["read", "write"])
            let issuer = try await discovery.authorizationServer(server.baseURL)
            #expect(issuer.tokenEndpoint == server.baseURL + "/auth/token")
            // No code_challenge_methods_supported: a client must not start the code grant with this server.
            #expect(issuer.codeChallengeMethodsSupported == nil)
        }
    }

    @Test("a metadata document about another resource fails the discovery at once (RFC 9728 3.3)")
    func resourceMismatch() async throws {
        try await withDemoClient(.asyncHTTPClient) { client, server in
            let discovery = OAuthDiscovery(using: client)
            let error = await expectParleyError(.authentication) {
                try await discovery.protectedResource(
                    try #require(URL(string: server.baseURL + "/mcp")),
                    metadataURL: server.baseURL + "/.well-known/oauth-protected-resource/auth/write"
                )
            }
            #expect(error?.message.contains("describes") == true)
            #expect(error?.message.contains("refusing to use its authorization servers") == true)
        }
    }

    @Test("a cancelled discovery fails as cancelled, not as missing metadata, and tries no further URL")
    func cancelled() async throws {
        try await withDemoClient(.asyncHTTPClient) { client, server in
            let discovery = OAuthDiscovery(using: client)
            let resource = try #require(URL(string: server.baseURL + "/auth/write"))
            let outcome = await Task { () async -> Result<ProtectedResourceMetadata, ParleyError> in
                withUnsafeCurrentTask { $0?.cancel() }
                do throws(ParleyError) {
                    return .success(try await discovery.protectedResource(resource))
                } catch {
                    return .failure(error)
                }
            }.value
            guard case .failure(let error) = outcome else {
                Issue.record("a cancelled discovery succeeded")
                return
            }
            #expect(error.kind == .cancelled)
        }
    }

    @Test("no metadata anywhere: the error lists what each URL answered; http only to loopback addresses")
    func noMetadata() async throws {
        try await withDemoClient(.asyncHTTPClient) { client, server in
            let discovery = OAuthDiscovery(using: client)
            let resource = try #require(URL(string: server.baseURL + "/nothing/here"))
            // A challenge URL that is plain http to another host is not fetched; the well-known URLs answer 404.
            let error = await expectParleyError(.authentication) {
                try await discovery.protectedResource(resource, metadataURL: "http://metadata.example/x")
            }
            let message = try #require(error?.message)
            #expect(message.contains("\"http://metadata.example/x\" is not fetched"))
            #expect(message.contains("/.well-known/oauth-protected-resource/nothing/here\" answered 404"))
            #expect(message.contains("/.well-known/oauth-protected-resource\" answered 404"))
            let remote = await expectParleyError(.authentication) {
                try await discovery.authorizationServer("http://auth.example")
            }
            #expect(remote?.message.contains("not an https URL") == true)
        }
    }
}

/// `POST /mcp` without a token: the SDK server's 401 and its challenge.
private struct Unauthenticated: Endpoint {
    typealias Response = Data
    var method: HTTPRequest.Method { .post }
    var path: Path { "/mcp" }
    var headers: Headers { ["Accept": "application/json, text/event-stream"] }
    var body: RequestBody { .json(["jsonrpc": "2.0", "id": 1, "method": "ping"] as JSONValue) }
}
