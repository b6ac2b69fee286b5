// swift-format-ignore-file
// Laid out line for line as the swift blocks of the doc comments it compiles (scripts/check-docs).
import Foundation
import Parley
import ParleyAsyncHTTPClient
import ParleyDemoServer
import ParleyTesting
import Testing

// The Swift blocks of the `///` doc comments of Sources/ParleyTesting and Sources/ParleyDemoServer. Each sample sits
// in a function of its own; what a sample assumes (a fixture `url`, an endpoint type) is declared before it, as the
// function's parameters or a type of the namespace, never in the sample.
enum DocCommentSamplesTesting {
    struct User: Codable, Sendable {
        let id: Int
        let name: String
    }

    struct GetUser: Endpoint {
        typealias Response = User
        let id: Int
        var path: Path { "/users/\(id)" }
    }

    struct NewUser: Encodable, Sendable {
        let name: String
        let email: String
    }

    // Sources/ParleyDemoServer/DemoServer.swift
    static func sampleDemoServer() async throws -> String {
        let server = try await DemoServer.start()
        defer { Task { await server.stop() } }
        print(server.baseURL)  // http://127.0.0.1:54321
        return server.baseURL
    }

    // Sources/ParleyTesting/FixtureRedaction.swift
    static func sampleFixtureRedaction() -> FixtureRedaction {
        let redaction = FixtureRedaction().adding(headerNames: ["X-Session"], bodyKeys: ["pin"])
        return redaction
    }

    // Sources/ParleyTesting/RecordingTransport.swift
    static func sampleRecordingTransport(liveServer: URL, token: AccessToken) async throws {
        let fixture = URL(filePath: "Tests/Fixtures/users.json")
        let recorder = RecordingTransport(wrapping: AsyncHTTPClientTransport.shared, fixture: fixture)
        let client = Client(baseURL: liveServer, transport: recorder, middlewares: [.bearerAuth { _ in token }])
        _ = try await client.send(GetUser(id: 1))          // sent to the server, and recorded
        // later, offline:
        let replay = try ReplayTransport(fixture: fixture)
        _ = replay
    }

    // Sources/ParleyTesting/ReplayTransport+Matching.swift
    static func sampleReplayMatching(url: URL) throws {
        let replay = try ReplayTransport(fixture: url)                      // any order, query order ignored
        let strict = try ReplayTransport(fixture: url, matching: .strict)   // recorded order, exact query, bodies
        _ = (replay, strict)
    }

    // Sources/ParleyTesting/ReplayTransport.swift
    static func sampleReplayTransport() async throws {
        let replay = try ReplayTransport(fixture: URL(filePath: "Tests/Fixtures/users.json"))
        let client = Client(baseURL: URL(string: "http://127.0.0.1:8080")!, transport: replay,
                            middlewares: [.bearerAuth { _ in AccessToken("any") }])
        let user = try await client.send(GetUser(id: 1))
        try replay.verifyAllUsed()
        _ = user
    }

    // Sources/ParleyTesting/RequestExpectation.swift
    static func sampleRequestExpectation(recorder: InMemoryTransport) throws {
        try recorder.expectRequests([
            .get("/users/1").header("Authorization", "Bearer t1"),
            .post("/users", json: NewUser(name: "Ada", email: "ada@example.com")).header(.contentType, "application/json").answered(201),
            .get("/search?q=swift&page=2").withoutHeader("Cookie"),
            .get("/feed").anyQuery(),
        ])
    }
}

/// Runs the doc-comment samples of ParleyTesting and the demo server that need nothing else.
@Suite("Doc comments: testing samples", .timeLimit(.minutes(1)))
struct DocCommentSamplesTestingTests {
    @Test func demoServerStartsOnALoopbackPort() async throws {
        let baseURL = try await DocCommentSamplesTesting.sampleDemoServer()
        #expect(baseURL.hasPrefix("http://127.0.0.1:"))
    }

    @Test func fixtureRedactionAddsToTheDefaults() {
        let redaction = DocCommentSamplesTesting.sampleFixtureRedaction()
        #expect(redaction.headerNames == FixtureRedaction.defaultHeaderNames + ["X-Session"])
        #expect(redaction.bodyKeys == FixtureRedaction.defaultBodyKeys + ["pin"])
    }
}
