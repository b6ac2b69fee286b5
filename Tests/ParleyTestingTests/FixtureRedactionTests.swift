import Foundation
import Parley
import ParleyTesting
import Testing

@testable import ParleyTestSupport

@Suite("Fixture redaction", .timeLimit(.minutes(1)))
struct FixtureRedactionTests {
    /// A JSON body with secrets at several depths, in odd spellings, and a string that only looks like a member.
    static let json =
        #"{"user": "ada", "Password" : "pw-1", "nested": {"token": {"a": [1, "t-2"]}, "keep": "x"}, "#
        + #""list": [{"secret": 42}, {"secret": null}], "pass\u0077ord": "pw-3", "note": "\"token\": not a member"}"#
    static let redactedJSON =
        #"{"user": "ada", "Password" : "<redacted>", "nested": {"token": "<redacted>", "keep": "x"}, "#
        + #""list": [{"secret": "<redacted>"}, {"secret": "<redacted>"}], "pass\u0077ord": "<redacted>", "#
        + #""note": "\"token\": not a member"}"#

    struct Post: Endpoint {
        typealias Response = Data
        var body: RequestBody
        var method: HTTPRequest.Method { .post }
        var path: Path { "/bench/object" }
    }

    @Test("names are redacted in URLs, header fields, JSON and form bodies, literal secrets anywhere; the rest byte for byte")
    func redaction() async throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let fixture = folder.file("redacted.json")
        let redaction = FixtureRedaction().adding(headerNames: ["X-Session"], bodyKeys: ["pin"])
        let echoed = EchoEndpoint(
            query: ["q": "swift", "access_token": "qs-secret", "Token": "qs-2"],
            headers: ["X-Session": "sess-secret", "X-Trace": "kept"]
        )
        let (_, baseURL) = try await recordFixture(fixture, redaction: redaction, secrets: ["qs-secret", "qs-2", "sess-secret"]) {
            client,
            _ in
            _ = try await client.send(Post(body: .bytes(Data(Self.json.utf8), contentType: "application/json")))
            _ = try await client.send(Post(body: .form(["name": "ada", "PIN": "1234", "password": "pw 4", "note": "a&b"])))
            _ = try await client.send(echoed)
        }
        let exchanges = try Fixture(contentsOf: fixture).exchanges
        try #require(exchanges.count == 3)
        #expect(exchanges[0].request.body?.text == Self.redactedJSON)
        #expect(exchanges[1].request.body?.text == "name=ada&PIN=<redacted>&password=<redacted>&note=a%26b")
        #expect(exchanges[2].request.url.hasSuffix("/echo?q=swift&access_token=<redacted>&Token=<redacted>"))
        let headers = exchanges[2].request.headers
        #expect(headers.contains(Fixture.Field("X-Session", "<redacted>")))
        #expect(headers.contains(Fixture.Field("X-Trace", "kept")))
        // The echo reflects the query and headers in its body, where only the literal secrets can find them.
        let echo = try #require(exchanges[2].response.body?.text)
        #expect(echo.contains(#"["x-session","<redacted>"]"#), "\(echo)")
        let text = try fileText(fixture)
        for secret in ["pw-1", "t-2", "pw-3", "1234", "pw+4", "qs-secret", "qs-2", "sess-secret"] {
            #expect(!text.contains(secret), "the fixture shows \(secret)")
        }
        #expect(try #require(Fixture(contentsOf: fixture).redaction.headerNames.last) == "X-Session")

        // Other secrets in the same places still match: a redacted value is a wildcard.
        let replay = try ReplayTransport(fixture: fixture, matching: .strict)
        let client = replayClient(replay, baseURL: baseURL)
        let other = Self.json.replacing("pw-1", with: "other").replacing("42", with: "43")
        _ = try await client.send(Post(body: .bytes(Data(other.utf8), contentType: "application/json")))
        _ = try await client.send(Post(body: .form(["name": "ada", "PIN": "0000", "password": "other", "note": "a&b"])))
        _ = try await client.send(
            EchoEndpoint(
                query: ["q": "swift", "access_token": "new", "Token": "new"],
                headers: ["X-Session": "new"]
            )
        )
        try replay.verifyAllUsed()
    }
}
