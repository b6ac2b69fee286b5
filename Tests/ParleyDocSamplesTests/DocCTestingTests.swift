// swift-format-ignore-file
// Laid out line for line as the swift blocks of the article it compiles (scripts/check-docs).
import Foundation
import Parley
import ParleyAsyncHTTPClient
import ParleyDemoServer
import ParleyTesting
import Testing

// The Swift blocks of Sources/ParleyTesting/ParleyTesting.docc/TestingWithParleyTesting.md, compiled and run: in
// memory, and against the demo server for the recorder and record/replay.
enum DocCTesting {
    struct User: Codable, Sendable {
        let id: Int
        let name: String
        let email: String
    }

    struct NewUser: Codable, Sendable {
        let name: String
        let email: String
    }

    struct GetUser: Endpoint {
        typealias Response = User
        let id: Int
        var path: Path { "/users/\(id)" }
    }

    struct CreateUser: Endpoint {
        typealias Response = User
        let name: String
        let email: String
        var method: HTTPRequest.Method { .post }
        var path: Path { "/users" }
        var body: RequestBody { .json(["name": name, "email": email]) }
    }

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

    struct WhoAmI: Endpoint {
        typealias Response = [String: String]
        var path: Path { "/auth/me" }
    }
}

extension DocCTesting {
    @Suite("DocC: Testing with ParleyTesting", .timeLimit(.minutes(1)))
    struct Examples {
        @Test("routes in memory, and the requests they received checked in order")
        func inMemory() async throws {
            let transport = InMemoryTransport()
            transport.route(.get, "/users/:id") { request in
                try .json(User(id: Int(request.parameters["id"] ?? "") ?? 0, name: "Ada Lovelace", email: "ada@example.com"))
            }
            transport.route(.post, "/users") { request in
                let new = try request.decodeJSON(NewUser.self)
                return try .json(User(id: 3, name: new.name, email: new.email), status: .created)
            }
            let client = Client(baseURL: try #require(URL(string: "https://api.example.com")), transport: transport)

            let ada = try await client.send(GetUser(id: 1))
            let grace = try await client.send(CreateUser(name: "Grace", email: "grace@example.com"))
            #expect(ada.name == "Ada Lovelace" && grace.id == 3)

            try transport.expectRequests([
                .get("/users/1").answered(200),
                .post("/users", json: NewUser(name: "Grace", email: "grace@example.com"))
                    .header(.contentType, "application/json")
                    .answered(201),
            ])
            let failure = #expect(throws: ParleyError.self) { try transport.expectRequests([.get("/users/2")]) }
            #expect(failure?.kind == .validation)
            #expect(failure?.message.contains("/users/2") == true)
        }

        @Test("a recorder around a real transport sees every attempt with the header fields of the middlewares")
        func recorder() async throws {
            try await withDocServer { baseURL, _ in
                let recorder = RequestRecorder(wrapping: AsyncHTTPClientTransport.shared)
                let retrying = Client(
                    baseURL: baseURL,
                    transport: recorder,
                    middlewares: [
                        .retry(RetryPolicy(maxAttempts: 3, initialBackoff: .milliseconds(10))),
                        .bearerAuth { _ in AccessToken("t1") },
                    ]
                )
                _ = try await retrying.send(Flaky(key: "a"))
                try recorder.expectRequests([
                    .get("/flaky?key=a&failures=2").header("Authorization", "Bearer t1").answered(503),
                    .get("/flaky?key=a&failures=2").header("Authorization", "Bearer t1").answered(503),
                    .get("/flaky?key=a&failures=2").header("Authorization", "Bearer t1").answered(200),
                ])
                #expect(recorder.requests.count == 3)
            }
        }

        @Test("recorded against the demo server, secrets redacted, replayed offline; an unmatched request fails loudly")
        func recordAndReplay() async throws {
            let server = try await DemoServer.start()
            let baseURL = try #require(URL(string: server.baseURL))
            let fixture = URL.temporaryDirectory.appending(path: "fixtures-\(UUID().uuidString)/whoami.json")   // in a suite: a file of the repository
            let token = try await Client(baseURL: baseURL).send(IssueToken()).accessToken
            let recording = RecordingTransport(wrapping: AsyncHTTPClientTransport.shared, fixture: fixture, secrets: [token])
            let live = Client(baseURL: baseURL, transport: recording, middlewares: [.bearerAuth { _ in AccessToken(token) }])
            print(try await live.send(WhoAmI())["token"] ?? "")   // 1
            defer { try? FileManager.default.removeItem(at: fixture.deletingLastPathComponent()) }
            #expect(recording.fixture.exchanges.count == 1)
            let written = try String(contentsOf: fixture, encoding: .utf8)
            #expect(!written.contains(token) && written.contains("Bearer <redacted>"))
            await server.stop()

            let replay = try ReplayTransport(fixture: fixture)
            let offline = Client(baseURL: baseURL, transport: replay, middlewares: [.bearerAuth { _ in AccessToken("offline-token") }])
            print(try await offline.send(WhoAmI())["token"] ?? "")   // <redacted>: "token" is a redacted JSON member
            try replay.verifyAllUsed()
            let replayed = try await Client(baseURL: baseURL, transport: ReplayTransport(fixture: fixture)).send(WhoAmI())
            #expect(replayed["subject"] == "demo" && replayed["token"] == "<redacted>")

            do {
                _ = try await offline.send(GetUser(id: 9))
            } catch {
                print(error.kind, (error.underlying as? ReplayError)?.request ?? "")   // transport GET /users/9
            }
            let unmatched = await #expect(throws: ParleyError.self) { try await offline.send(GetUser(id: 9)) }
            #expect(unmatched?.kind == .transport)
            #expect((unmatched?.underlying as? ReplayError)?.request == "GET /users/9")

            do {
                let transport: any ClientTransport =
                    try ProcessInfo.processInfo.environment["RECORD_FIXTURES"] == nil
                    ? ReplayTransport(fixture: fixture)
                    : RecordingTransport(wrapping: AsyncHTTPClientTransport.shared, fixture: fixture)
                #expect(transport is ReplayTransport)
            }
        }
    }
}
