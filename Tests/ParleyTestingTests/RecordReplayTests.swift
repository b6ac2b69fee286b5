import Foundation
import Parley
import ParleyDemoServer
import ParleyTesting
import Testing

@testable import ParleyTestSupport

@Suite("Record and replay", .timeLimit(.minutes(1)))
struct RecordReplayTests {
    /// Secrets sent while recording, none of which may reach the fixture file.
    struct Secrets {
        let token = "bearer-\(UUID().uuidString)"
        let apiKey = "key-\(UUID().uuidString)"
        let password = "password-\(UUID().uuidString)"
        let cookie = "cookie-\(UUID().uuidString)"
    }

    /// The calls recorded and replayed: JSON, a JSON body, binary bytes, repeated header fields, a streamed body,
    /// a download and a token issued by the server.
    static func exercise(_ client: Client, secrets: Secrets, download: URL) async throws -> [SeenResponse] {
        var seen: [SeenResponse] = []
        let user = try await client.response(for: GetData(path: "/users/1", query: ["api_key": secrets.apiKey]))
        seen.append(SeenResponse(user.response, body: user.value))
        let created = try await client.response(
            for: SignUp(user: .init(name: "Grace", email: "grace@example.com", password: secrets.password))
        )
        seen.append(SeenResponse(created.response, body: created.value))
        let bytes = try await client.response(for: GetData(path: "/bytes", query: ["n": "3000"]))
        seen.append(SeenResponse(bytes.response, body: bytes.value))
        let multi = try await client.response(for: GetData(path: "/headers/multi"))
        seen.append(SeenResponse(multi.response, body: multi.value))
        let streamed = try await client.stream(GetData(path: "/bytes", query: ["n": "300000", "chunked": "true"]))
        let (streamedBody, chunks) = try await collect(streamed.body)
        #expect(chunks > 1, "the body arrived in \(chunks) chunk(s)")
        seen.append(SeenResponse(streamed.response, body: streamedBody))
        let file = try await client.download(Download(size: 200_000), to: download).value
        seen.append(SeenResponse(file.response, body: try Data(contentsOf: download)))
        let issued = try await client.response(for: IssueTokenBytes())
        seen.append(SeenResponse(issued.response, body: issued.value))
        return seen
    }

    @Test(
        "recorded on the demo server, replayed with the server stopped: same status, fields in order, body bytes",
        arguments: TransportKind.allCases
    )
    func recordThenReplay(_ kind: TransportKind) async throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let fixture = folder.file("fixtures/demo.json")
        let secrets = Secrets()
        let token = secrets.token
        let (live, baseURL) = try await recordFixture(
            fixture,
            on: kind,
            middlewares: [.bearerAuth { _ in AccessToken(token) }],
            headers: ["Cookie": "session=\(secrets.cookie)"]
        ) { client, recording in
            let seen = try await Self.exercise(client, secrets: secrets, download: folder.file("live.bin"))
            #expect(recording.fixture.exchanges.count == seen.count)
            #expect(try Fixture(contentsOf: fixture) == recording.fixture, "the file round-trips")
            return seen
        }
        #expect(live[5].body == Data(Pattern.chunk(at: 0, length: 200_000)))

        // Offline: another token, another API key; the redacted values in the fixture match any.
        let replay = try ReplayTransport(fixture: fixture)
        let client = replayClient(replay, baseURL: baseURL, middlewares: [.bearerAuth { _ in AccessToken("other") }])
        let replayed = try await Self.exercise(client, secrets: Secrets(), download: folder.file("replayed.bin"))
        try replay.verifyAllUsed()

        #expect(replayed.count == live.count)
        for (index, (recorded, answer)) in zip(live, replayed).enumerated() {
            var expected = recorded
            // What redaction changes on purpose: Set-Cookie values, and the issued access_token.
            expected.fields = recorded.fields.map { field in
                let name = field.prefix { $0 != ":" }
                return name.lowercased() == "set-cookie" ? "\(name): <redacted>" : field
            }
            if index == live.count - 1 {
                let issued = try JSONDecoder().decode(IssuedToken.self, from: recorded.body).access_token
                expected.body = Data(String(decoding: recorded.body, as: UTF8.self).replacing(issued, with: "<redacted>").utf8)
            }
            #expect(answer == expected, "exchange \(index)")
        }

        let text = try fileText(fixture)
        let issued = try JSONDecoder().decode(IssuedToken.self, from: live[6].body).access_token
        for secret in [secrets.token, secrets.apiKey, secrets.password, secrets.cookie, issued, "a=1", "b=2"] {
            #expect(!text.contains(secret), "the fixture shows \(secret)")
        }
        #expect(text.hasPrefix("{\n  \"format\": \"parley-fixture/1\",\n"))
        #expect(text.contains(#"["Authorization", "Bearer <redacted>"]"#))
        #expect(text.contains("api_key=<redacted>"))
        #expect(text.contains(#"\"password\":\"<redacted>\""#))
        #expect(text.contains(#""body": {"base64": "AAECAwQF"#), "binary bodies are base64")
        #expect(text.contains(#""body": {"text": "{\"email\":\"ada@example.com\""#), "text bodies are text")
    }

    @Test("a body still streams while recorded; one the caller stops reading is kept incomplete and replay fails past it")
    func incompleteStream() async throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let fixture = folder.file("forever.json")
        let endpoint = GetData(path: "/sse/forever", query: ["every": "3600000"])
        let (first, baseURL) = try await recordFixture(fixture) { client, recording in
            // The stream never ends: its first bytes arriving proves the recorder does not wait for the end.
            let first: ArraySlice<UInt8>? = try await {
                let streamed = try await client.stream(endpoint)
                var iterator = streamed.body.makeAsyncIterator()
                return try await iterator.next()
            }()
            #expect(recording.fixture.exchanges.count == 1, "recorded once the body was dropped")
            return first
        }
        let recorded = try #require(first)
        let exchange = try #require(try Fixture(contentsOf: fixture).exchanges.first)
        #expect(exchange.response.body == Fixture.Body(Data(recorded), isComplete: false))
        #expect(try fileText(fixture).contains(#", "incomplete": true}"#))

        let client = replayClient(try ReplayTransport(fixture: fixture), baseURL: baseURL)
        let streamed = try await client.stream(endpoint)
        var iterator = streamed.body.makeAsyncIterator()
        #expect(try await iterator.next() == recorded)
        do {
            let more = try await iterator.next()
            Issue.record("read past the recorded bytes: \(String(describing: more))")
        } catch {
            #expect(error.kind == .transport)
            #expect(error.message.contains("holds only the first \(recorded.count) bytes"), "\(error)")
            #expect(error.message.contains("Re-record"), "\(error)")
        }
    }

    @Test("a body over the recording limit fails loudly and is not recorded", arguments: TransportKind.allCases)
    func sizeLimit(_ kind: TransportKind) async throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let fixture = folder.file("limited.json")
        _ = try await recordFixture(fixture, on: kind, maxBodySize: 1000) { client, recording in
            let response = await expectParleyError(.bodyTooLarge) {
                try await client.send(GetData(path: "/bytes", query: ["n": "5000"]))
            }
            #expect(response?.message.contains("larger than the 1000 bytes") == true, "\(String(describing: response))")
            let request = await expectParleyError(.bodyTooLarge) {
                try await client.send(
                    SignUp(user: .init(name: String(repeating: "x", count: 2000), email: "x@example.com", password: "p"))
                )
            }
            #expect(request?.message.contains("The request body of POST") == true, "\(String(describing: request))")
            let small = try await client.send(GetData(path: "/bytes", query: ["n": "500"]))
            #expect(small.count == 500)
            #expect(recording.fixture.exchanges.map(\.request.url).map { $0.hasSuffix("/bytes?n=500") } == [true])
        }
        #expect(try Fixture(contentsOf: fixture).exchanges.count == 1)
    }
}
