import Foundation
import Parley
import ParleyTesting
import Testing

@testable import ParleyTestSupport

@Suite("Replay matching", .timeLimit(.minutes(1)))
struct ReplayMatchingTests {
    /// Records `GET /users/1` and `GET /users/2?x=1&y=2` from the demo server.
    static func twoUsers(_ fixture: URL) async throws -> URL {
        try await recordFixture(fixture) { client, _ in
            _ = try await client.send(GetUser(id: 1))
            _ = try await client.send(GetData(path: "/users/2", query: ["x": "1", "y": "2"]))
        }.baseURL
    }

    @Test("an unmatched request fails loudly: the request, the closest exchanges and why, how to re-record")
    func unmatched() async throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let fixture = folder.file("users.json")
        let baseURL = try await Self.twoUsers(fixture)
        let client = replayClient(try ReplayTransport(fixture: fixture), baseURL: baseURL)

        let error = try #require(await expectParleyError(.transport) { try await client.send(GetUser(id: 9)) })
        #expect(error.request?.url.hasSuffix("/users/9") == true)
        #expect(
            error.message.contains(
                "ReplayTransport has no recorded exchange for GET /users/9 (\(fixture.path): 2 exchanges, 0 used"
            )
        )
        #expect(error.message.contains("Closest recorded exchanges:\n  #0 GET /users/1: path /users/1, not /users/9\n"))
        #expect(error.message.contains("#1 GET /users/2?x=1&y=2: path /users/2, not /users/9; query x=1&y=2, not none"))
        #expect(
            error.message.contains("RecordingTransport(wrapping: <live transport>, fixture: URL(filePath: \"\(fixture.path)\"))")
        )
        let replayError = try #require(error.underlying as? ReplayError)
        #expect(replayError.request == "GET /users/9")
        #expect(replayError.candidates.map(\.index) == [0, 1])
        #expect(replayError.candidates.first?.reasons == ["path /users/1, not /users/9"])
        #expect(replayError.fixture == fixture)

        let query = try #require(
            await expectParleyError(.transport) {
                try await client.send(GetData(path: "/users/2", query: ["x": "1", "y": "3"]))
            }
        )
        #expect(query.message.contains("#1 GET /users/2?x=1&y=2: query x=1&y=2, not x=1&y=3"), "\(query)")
    }

    @Test("each exchange answers once, then fails as already used unless reuse is allowed; verifyAllUsed lists the rest")
    func usedOnceAndVerified() async throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let fixture = folder.file("users.json")
        let baseURL = try await Self.twoUsers(fixture)
        let replay = try ReplayTransport(fixture: fixture)
        let client = replayClient(replay, baseURL: baseURL)

        #expect(try await client.send(GetUser(id: 1)).name == "Ada Lovelace")
        let unused = try #require(await expectParleyError(.validation) { try replay.verifyAllUsed() })
        #expect(
            unused.message.contains(
                "did not use 1 of the 2 recorded exchanges of \(fixture.path):\n  #1 GET /users/2?x=1&y=2 → 200"
            )
        )
        #expect((unused.underlying as? ReplayError)?.unused == ["#1 GET /users/2?x=1&y=2 → 200"])
        #expect(replay.unusedExchanges.map(\.request.method) == ["GET"])

        // Query items match in any order by default.
        _ = try await client.send(GetData(path: "/users/2", query: ["y": "2", "x": "1"]))
        try replay.verifyAllUsed()
        #expect(replay.unusedExchanges.isEmpty)

        let again = try #require(await expectParleyError(.transport) { try await client.send(GetUser(id: 1)) })
        #expect(again.message.contains("#0 GET /users/1: already used"), "\(again)")

        let reusing = try ReplayTransport(fixture: fixture, matching: .init(reusesExchanges: true))
        let reusingClient = replayClient(reusing, baseURL: baseURL)
        for _ in 0..<3 { #expect(try await reusingClient.send(GetUser(id: 1)).id == 1) }
    }

    @Test("strict matching: recorded order, exact query order; any order by default")
    func strictOrder() async throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let fixture = folder.file("users.json")
        let baseURL = try await Self.twoUsers(fixture)

        let strict = try ReplayTransport(fixture: fixture, matching: .strict)
        let client = replayClient(strict, baseURL: baseURL)
        let early = try #require(
            await expectParleyError(.transport) {
                try await client.send(GetData(path: "/users/2", query: ["x": "1", "y": "2"]))
            }
        )
        #expect(early.message.contains("matching: recorded order, query order matters, bodies compared"))
        #expect(
            early.message.contains(
                "Closest recorded exchanges:\n  #0 GET /users/1: path /users/1, not /users/2; query none, not x=1&y=2"
            )
        )
        #expect(
            early.message.contains(
                "#1 GET /users/2?x=1&y=2: matches, but the order is strict (Matching.order = .recorded) and #0 comes first"
            )
        )
        _ = try await client.send(GetUser(id: 1))
        let reordered = try #require(
            await expectParleyError(.transport) {
                try await client.send(GetData(path: "/users/2", query: ["y": "2", "x": "1"]))
            }
        )
        #expect(reordered.message.contains("query x=1&y=2, not y=2&x=1 (query order matters)"), "\(reordered)")
        _ = try await client.send(GetData(path: "/users/2", query: ["x": "1", "y": "2"]))
        try strict.verifyAllUsed()
        let past = try #require(await expectParleyError(.transport) { try await client.send(GetUser(id: 1)) })
        #expect(past.message.contains("Every recorded exchange has been used."))

        let lenient = try ReplayTransport(fixture: fixture)
        let any = replayClient(lenient, baseURL: baseURL)
        _ = try await any.send(GetData(path: "/users/2", query: ["x": "1", "y": "2"]))
        _ = try await any.send(GetUser(id: 1))
        try lenient.verifyAllUsed()
    }

    @Test("retries recorded through the middlewares replay in turn; a redacted password still matches the body")
    func retriesAndBodies() async throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let fixture = folder.file("retries.json")
        let retry: [any ClientMiddleware] = [.retry(RetryPolicy(maxAttempts: 3, initialBackoff: .milliseconds(10)))]
        let flaky = Flaky(key: "replayed")
        let (live, baseURL) = try await recordFixture(fixture, middlewares: retry) { client, _ in
            let answer = try await client.send(flaky)
            _ = try await client.send(SignUp(user: .init(name: "Ada", email: "ada@example.com", password: "first")))
            return answer
        }
        #expect(live.attempts == 3)
        let statuses = try Fixture(contentsOf: fixture).exchanges.map(\.response.status)
        #expect(statuses == [503, 503, 200, 201])

        let replay = try ReplayTransport(fixture: fixture, matching: .init(matchesBody: true))
        let recorder = RequestRecorder(wrapping: replay)
        let client = replayClient(recorder, baseURL: baseURL, middlewares: retry)
        #expect(try await client.send(flaky).attempts == 3)
        _ = try await client.send(SignUp(user: .init(name: "Ada", email: "ada@example.com", password: "second")))
        try recorder.expectRequests([
            .get("/flaky?key=replayed&failures=2&status=503").answered(503),
            .get("/flaky?key=replayed&failures=2&status=503").answered(503),
            .get("/flaky?key=replayed&failures=2&status=503").answered(200),
            .post("/users", json: ["name": "Ada", "email": "ada@example.com", "password": "second"]).answered(201),
        ])
        try replay.verifyAllUsed()

        let other = try ReplayTransport(fixture: fixture, matching: .init(matchesBody: true))
        let error = try #require(
            await expectParleyError(.transport) {
                try await replayClient(other, baseURL: baseURL).send(
                    SignUp(user: .init(name: "Bob", email: "b@example.com", password: "x"))
                )
            }
        )
        // JSONEncoder's member order varies between runs: the line is checked part by part.
        let line = try #require(error.message.split(separator: "\n").first { $0.contains("#3 POST /users: body ") })
        #expect(line.contains(#"\"name\":\"Ada\""#) && line.contains(#"\"password\":\"<redacted>\""#), "\(line)")
        #expect(line.contains(#", not "{"#) && line.contains(#"\"name\":\"Bob\""#), "\(line)")
    }
}
