import Foundation
import Parley
import ParleyDemoServer
import ParleyTesting
import Testing

@testable import ParleyTestSupport

@Suite("Request assertions", .timeLimit(.minutes(1)))
struct RequestRecorderTests {
    static let middlewares: [any ClientMiddleware] = [
        .bearerAuth { _ in AccessToken("t-1") },
        .retry(RetryPolicy(maxAttempts: 3, initialBackoff: .milliseconds(10))),
    ]

    /// Runs `body` with a client on a recorder in front of `kind`'s transport, against a fresh demo server.
    func withRecorder(
        _ kind: TransportKind,
        _ body: (Client, RequestRecorder) async throws -> Void
    ) async throws {
        let server = try await DemoServer.start()
        let recorder = RequestRecorder(wrapping: kind.makeTransport())
        let client = Client(
            baseURL: try #require(URL(string: server.baseURL)),
            transport: recorder,
            middlewares: Self.middlewares
        )
        do {
            try await body(client, recorder)
        } catch {
            try? await client.shutdown()
            await server.stop()
            throw error
        }
        try await client.shutdown()
        await server.stop()
    }

    @Test(
        "the transport's view after the middlewares: the bearer token on every attempt, each retry in order",
        arguments: TransportKind.allCases
    )
    func authAndRetries(_ kind: TransportKind) async throws {
        try await withRecorder(kind) { client, recorder in
            let key = "k-\(kind.rawValue)"
            #expect(try await client.send(Flaky(key: key)).attempts == 3)
            let attempt = RequestExpectation.get("/flaky?key=\(key)&failures=2&status=503").header("Authorization", "Bearer t-1")
            try recorder.expectRequests([attempt.answered(503), attempt.answered(503), attempt.answered(200)])

            let requests = recorder.requests
            #expect(
                requests.map(\.description)
                    == Array(repeating: "GET /flaky?key=\(key)&failures=2&status=503", count: 3)
                    .enumerated().map { "\($1) → \($0 < 2 ? 503 : 200)" }
            )
            #expect(requests.allSatisfy { $0.header(.authorization) == "Bearer t-1" && $0.query("key") == key })
            #expect(requests.allSatisfy { $0.operationID == "Flaky" })
            #expect(recorder.requests(matching: attempt.answered(503)).count == 2)
        }
    }

    @Test("each redirect hop is a request of its own, and a JSON body can be asserted as JSON", arguments: TransportKind.allCases)
    func redirectsAndBodies(_ kind: TransportKind) async throws {
        try await withRecorder(kind) { client, recorder in
            _ = try await client.send(GetData(path: "/redirect/chain/2"))
            _ = try await client.send(CreateUser(user: NewUser(name: "Ada", email: "ada@example.com")))
            try recorder.expectRequests([
                .get("/redirect/chain/2").answered(302),
                .get("/redirect/chain/1").answered(302),
                .get("/echo").header("Authorization", "Bearer t-1").answered(200),
                .post("/users", json: NewUser(name: "Ada", email: "ada@example.com"))
                    .header(.contentType, "application/json").withoutHeader("Cookie").answered(201),
            ])
            let posted = try #require(recorder.requests.last)
            #expect(try posted.decodeJSON(NewUser.self).name == "Ada")
            #expect(posted.bodyText?.contains("ada@example.com") == true)
            recorder.clear()
            #expect(recorder.requests.isEmpty)
        }
    }

    @Test("a failed assertion shows each request: ok, differs (with every difference), extra, missing")
    func failureMessage() async throws {
        try await withRecorder(.asyncHTTPClient) { client, recorder in
            _ = try await client.send(Flaky(key: "diff"))
            _ = try await client.send(CreateUser(user: NewUser(name: "Ada", email: "ada@example.com")))
            let attempt = RequestExpectation.get("/flaky?key=diff&failures=2&status=503")
            let error = try #require(
                await expectParleyError(.validation) {
                    try recorder.expectRequests([
                        attempt.answered(503),
                        attempt.header("Authorization", "Bearer wrong").answered(503),
                        .post("/users", json: NewUser(name: "Bob", email: "ada@example.com")),
                        .delete("/users/1"),
                    ])
                }
            )
            let flaky = "GET /flaky?key=diff&failures=2&status=503"
            let lines = error.message.split(separator: "\n").map(String.init)
            let expected = [
                "The requests the transport received differ from the expected ones (4 received, 4 expected):",
                "  #0 ok       \(flaky) → 503",
                "  #1 differs  expected \(flaky), header Authorization: \"Bearer wrong\", answered 503",
                "              received \(flaky) → 503",
                "              - header Authorization: expected \"Bearer wrong\", received \"Bearer t-1\"",
                "  #2 extra    received \(flaky) → 200 (not expected)",
                "  #3 differs  expected POST /users, JSON body {\"email\":\"ada@example.com\",\"name\":\"Bob\"}",
                "              received POST /users → 201",
                "              - body.name: expected \"Bob\", received \"Ada\"",
                "  -- missing  expected DELETE /users/1 (not received)",
            ]
            #expect(lines == expected, "\(error.message)")
        }
    }

    @Test("InMemoryTransport takes the same expectations")
    func inMemory() async throws {
        let transport = InMemoryTransport()
        transport.route(.get, "/users/:id") { _ in .text("{}") }
        let client = Client(
            baseURL: try #require(URL(string: "https://api.test")),
            transport: transport,
            middlewares: Self.middlewares
        )
        _ = try await client.send(GetData(path: "/users/7", query: ["fields": "name email"]))
        try transport.expectRequests([.get("/users/7?fields=name%20email").header("Authorization", "Bearer t-1")])
        let error = try #require(await expectParleyError(.validation) { try transport.expectRequests([.get("/users/7")]) })
        #expect(error.message.contains("- query: expected none, received fields=name%20email"), "\(error.message)")
        try transport.expectRequests([.get("/users/7").anyQuery().answered(200)])
    }
}
