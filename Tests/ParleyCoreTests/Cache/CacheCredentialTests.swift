import Foundation
import HTTPTypes
import Hummingbird
import Testing

@testable import Parley
@testable import ParleyTestSupport

/// An origin whose `/me` answers, cacheable for a minute, with the credential the request carried (in any of the
/// places an API key goes), so that a test sees whose answer it got.
private final class WhoAmIServer: Sendable {
    let baseURL: URL
    private let server: TestServer

    private init(baseURL: URL, server: TestServer) {
        self.baseURL = baseURL
        self.server = server
    }

    static func start() async throws -> WhoAmIServer {
        let router = Router(context: BasicRequestContext.self)
        router.get("me") { request, _ -> Response in
            let fields = ["X-API-Key", "Api-Token", "X-Auth-Token"].compactMap { HTTPField.Name($0) }
            let header = fields.compactMap { request.headers[$0] }.first
            let query = request.uri.queryParameters.get("api_key")
            var response = Response(
                status: .ok,
                body: ResponseBody(byteBuffer: .init(string: header ?? query ?? "anonymous"))
            )
            response.headers[.contentType] = "text/plain"
            response.headers[.cacheControl] = "max-age=60"
            return response
        }
        let server = try await TestServer.start(router, label: "parley.cache-credentials")
        return WhoAmIServer(baseURL: try #require(URL(string: "http://127.0.0.1:\(server.port)")), server: server)
    }

    func stop() async {
        await server.stop()
    }
}

private struct Me: Endpoint {
    typealias Response = String
    var path: Path { "/me" }
    var headers: Headers = [:]
}

/// Where a test puts the API key middleware.
enum KeyPlacement: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case defaultHeader, customHeader, queryItem
    var testDescription: String { rawValue }

    func middleware(_ key: String) -> any ClientMiddleware {
        switch self {
        case .defaultHeader: .apiKey(key)
        case .customHeader: .apiKey(key, header: "Api-Token")
        case .queryItem: .apiKey(key, queryItem: "api_key")
        }
    }
}

@Suite("The HTTP cache keeps each user's answers to that user (issue 24, item 3)", .timeLimit(.minutes(1)))
struct CacheCredentialTests {
    @Test(
        "Alice and Bob share an HTTPCache with their own .apiKey: Bob never gets Alice's answer",
        arguments: KeyPlacement.allCases,
        [false, true]
    )
    func sharedCacheAPIKey(placement: KeyPlacement, asRequestMiddleware: Bool) async throws {
        let origin = try await WhoAmIServer.start()
        let store = MemoryCacheStore()
        var configuration = Client.Configuration()
        configuration.cache = HTTPCache(store: store)
        func client(_ key: String) -> Client {
            let auth = [placement.middleware(key)]
            return Client(
                baseURL: origin.baseURL,
                transport: TransportKind.asyncHTTPClient.makeTransport(),
                middlewares: asRequestMiddleware ? [] : auth,
                requestMiddlewares: asRequestMiddleware ? auth : [],
                configuration: configuration
            )
        }
        let alice = client("alice-secret-key")
        let bob = client("bob-secret-key")
        #expect(try await alice.send(Me()) == "alice-secret-key")
        #expect(try await bob.send(Me()) == "bob-secret-key")
        #expect(try await alice.send(Me()) == "alice-secret-key")
        // No credential in clear in what the cache keeps of the variant.
        let key = "GET \(origin.baseURL.absoluteString)/me"
        for variant in await store.responses(for: key) {
            #expect(!"\(variant.varied)".contains("secret-key"), "\(variant.varied)")
        }
        try await alice.shutdown()
        try await bob.shutdown()
        await origin.stop()
    }

    @Test("One client, two users' X-Auth-Token set by the endpoint: each gets their own answer, stored hashed")
    func sharedClientEndpointToken() async throws {
        let origin = try await WhoAmIServer.start()
        let store = MemoryCacheStore()
        var configuration = Client.Configuration()
        configuration.cache = HTTPCache(store: store)
        let client = Client(
            baseURL: origin.baseURL,
            transport: TransportKind.asyncHTTPClient.makeTransport(),
            configuration: configuration
        )
        #expect(try await client.send(Me(headers: ["X-Auth-Token": "alice-token"])) == "alice-token")
        #expect(try await client.send(Me(headers: ["X-Auth-Token": "bob-token"])) == "bob-token")
        let (again, response) = try await client.response(for: Me(headers: ["X-Auth-Token": "alice-token"]))
        #expect(again == "alice-token")
        #expect(HTTPCache.outcome(of: response) == .hit, "Alice's own answer is still hers to reuse")
        #expect(try await client.send(Me()) == "anonymous", "no credential: not anyone's answer")
        for variant in await store.responses(for: "GET \(origin.baseURL.absoluteString)/me") {
            #expect(!"\(variant.varied)".contains("alice-token"), "\(variant.varied)")
            #expect(!"\(variant.varied)".contains("bob-token"), "\(variant.varied)")
        }
        try await client.shutdown()
        await origin.stop()
    }
    @Test("A name of Client.Configuration.sensitiveFields is part of the variant too")
    func configuredSensitiveHeader() async throws {
        let origin = try await WhoAmIServer.start()
        var configuration = Client.Configuration()
        configuration.cache = HTTPCache()
        let client = Client(baseURL: origin.baseURL, configuration: configuration)
        // `Api-Token` is not a default name; the server reads it, so it must be declared.
        configuration.sensitiveFields = SensitiveFields().adding(headerFields: ["Api-Token"])
        let declared = Client(baseURL: origin.baseURL, configuration: configuration)
        #expect(try await declared.send(Me(headers: ["Api-Token": "alice-token"])) == "alice-token")
        #expect(try await declared.send(Me(headers: ["Api-Token": "bob-token"])) == "bob-token")
        try await client.shutdown()
        try await declared.shutdown()
        await origin.stop()
    }
}
