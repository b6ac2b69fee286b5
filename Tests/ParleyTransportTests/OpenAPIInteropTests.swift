import Foundation
import HTTPTypes
import OpenAPIAsyncHTTPClient
@_spi(Generated) import OpenAPIRuntime
import Parley
import ParleyDemoServer
import Testing

@testable import ParleyTestSupport

/// Parley and the OpenAPI ecosystem share `ClientMiddleware` and `ClientTransport` (DESIGN.md), so each side's
/// pieces plug into the other. Both directions against the real demo server.
@Suite("Interop with swift-openapi-runtime", .timeLimit(.minutes(1)))
struct OpenAPIInteropTests {
    /// An OpenAPI-generated client calls `UniversalClient.send(input:forOperation:serializer:deserializer:)`; these
    /// tests do the same, as generated code would, without the generator.
    private static func openAPIClient(
        serverURL: URL,
        middlewares: [any ClientMiddleware]
    ) -> UniversalClient {
        UniversalClient(
            serverURL: serverURL,
            transport: OpenAPIAsyncHTTPClient.AsyncHTTPClientTransport(),
            middlewares: middlewares
        )
    }

    /// A generated operation: `GET path` answered by `200` with a JSON body decoded as `T`; other statuses throw.
    private static func get<T: Decodable & Sendable>(
        _ type: T.Type,
        path: String,
        operationID: String,
        on client: UniversalClient
    ) async throws -> T {
        try await client.send(
            input: path,
            forOperation: operationID,
            serializer: { path in (HTTPRequest(method: .get, scheme: nil, authority: nil, path: path), nil) },
            deserializer: { response, body in
                guard response.status == .ok else { throw UnexpectedStatus(status: response.status) }
                let bytes = try await Data(collecting: body ?? HTTPBody(), upTo: 1 << 20)
                return try JSONDecoder().decode(T.self, from: bytes)
            }
        )
    }

    @Test("Parley's retry and Basic auth middlewares work inside an OpenAPI client")
    func parleyMiddlewaresInOpenAPIClient() async throws {
        let server = try await DemoServer.start()
        let events = RetryLog()
        let client = Self.openAPIClient(
            serverURL: try #require(URL(string: server.baseURL)),
            middlewares: [
                .retry(
                    RetryPolicy(maxAttempts: 3, initialBackoff: .milliseconds(1), maxBackoff: .milliseconds(5)),
                    onRetry: events.record
                ),
                .basicAuth(username: DemoBasicAuth.user, password: DemoBasicAuth.password),
            ]
        )
        // Outside a Parley Client there is no CallContext: the retry middleware falls back to the method (GET is
        // idempotent) and names the endpoint by the OpenAPI operation id.
        do {
            let key = UUID().uuidString
            let flaky = try await Self.get(
                FlakyAnswer.self,
                path: "/flaky?key=\(key)&failures=2&status=503",
                operationID: "getFlaky",
                on: client
            )
            #expect(flaky.attempts == 3)
            #expect(events.all.map(\.status) == [503, 503])
            #expect(events.all.map(\.endpoint) == ["getFlaky", "getFlaky"])

            let user = try await Self.get([String: String].self, path: "/auth/basic", operationID: "whoAmI", on: client)
            #expect(user == ["user": DemoBasicAuth.user])
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test("swift-openapi-async-http-client's transport carries Parley's typed calls")
    func openAPITransportUnderParley() async throws {
        let server = try await DemoServer.start()
        let client = Client(
            baseURL: try #require(URL(string: server.baseURL)),
            transport: OpenAPIAsyncHTTPClient.AsyncHTTPClientTransport()
        )
        do {
            let user = try await client.send(GetUser(id: 1))
            #expect(user.id == 1)
            // Bodies, query and headers go through it as through Parley's own transports.
            let echo = try await client.send(
                EchoEndpoint(
                    method: .post,
                    query: ["q": "a b&c"],
                    headers: ["X-Interop": "yes"],
                    body: .json(["n": 42])
                )
            )
            #expect(echo.method == "POST")
            #expect(echo.queryItems == [["q", "a b&c"]])
            #expect(echo.header("X-Interop") == ["yes"])
            #expect(echo.body == #"{"n":42}"#)
            // Parley's status check and typed error apply whatever the transport.
            let error = await expectParleyError(.unacceptableStatus) { try await client.send(GetUser(id: 99)) }
            #expect(error?.status?.code == 404)
            // A base URL with a path prefix: the prefix once, not twice (the transport builds base URL + path).
            let prefixed = Client(
                baseURL: try #require(URL(string: server.baseURL + "/users")),
                transport: OpenAPIAsyncHTTPClient.AsyncHTTPClientTransport()
            )
            #expect(try await prefixed.send(Get<User>(path: "/2")).id == 2)
            // A redirect to another origin reaches it (the transport is given each hop's origin).
            let other = try await DemoServer.start()
            let hopped = try await client.send(EchoEndpoint(path: "/redirect", query: ["to": other.baseURL + "/echo?hop=1"]))
            await other.stop()
            #expect(hopped.path == "/echo" && hopped.queryItems == [["hop", "1"]])
            // And the transport's own failures are still ParleyErrors, with the request. (Not a refused port: the
            // shared HTTPClient this transport uses by default retries connecting until its one-minute deadline.)
            let faults = try await FaultServer.start()
            let broken = Client(
                baseURL: try #require(URL(string: faults.baseURL)),
                transport: OpenAPIAsyncHTTPClient.AsyncHTTPClientTransport()
            )
            let failure = await expectParleyError(.transport) { try await broken.send(GetData(path: "/reset")) }
            #expect(failure?.request?.description.hasPrefix("GET http://127.0.0.1:") == true)
            await faults.stop()
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}

/// `/flaky`'s answer once it succeeds.
private struct FlakyAnswer: Decodable, Sendable {
    let key: String
    let attempts: Int
}

/// A status the generated operation does not document.
private struct UnexpectedStatus: Error {
    let status: HTTPResponse.Status
}
