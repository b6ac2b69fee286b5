import Foundation
import HTTPTypes
import Parley
import Testing

@testable import ParleyTestSupport

/// The demo server's `/auth/me` with a token it never issued.
private struct UnknownToken: Endpoint {
    typealias Response = Data
    var path: Path { "/auth/me" }
    var headers: Headers { ["Authorization": "Bearer not-a-token"] }
}

/// `WWW-Authenticate` read as RFC 9110 section 11.6.1 writes it (the challenges OAuth's discovery and step-up start
/// from: RFC 6750's `error` and `scope`, RFC 9728's `resource_metadata`), and hostile fields kept to what is well formed.
@Suite("WWW-Authenticate: challenges, parameters and token68")
struct AuthenticationChallengeTests {
    @Test("RFC 9110's example: two challenges, quoted pairs unescaped, names case-insensitive")
    func rfc9110Example() {
        let challenges = AuthenticationChallenge.parse([
            #"Newauth realm="apps", type=1, title="Login to \"apps\"", Basic realm="simple""#
        ])
        #expect(
            challenges == [
                AuthenticationChallenge(
                    scheme: "newauth",
                    parameters: ["realm": "apps", "type": "1", "title": #"Login to "apps""#]
                ),
                AuthenticationChallenge(scheme: "basic", parameters: ["realm": "simple"]),
            ]
        )
    }

    @Test("an MCP step-up challenge: error, scopes and the resource metadata URL")
    func stepUp() throws {
        let challenges = AuthenticationChallenge.parse([
            #"Bearer error="insufficient_scope", scope="files:read files:write", "#
                + #"resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource""#
        ])
        let challenge = try #require(challenges.first)
        #expect(challenges.count == 1)
        #expect(challenge.scheme == "bearer")
        #expect(challenge.error == "insufficient_scope")
        #expect(challenge.scopes == ["files:read", "files:write"])
        #expect(challenge.resourceMetadata == "https://mcp.example.com/.well-known/oauth-protected-resource")
    }

    @Test("token68 challenges, with and without padding, beside challenges with parameters; several field lines")
    func token68() {
        let challenges = AuthenticationChallenge.parse([
            "Negotiate abc+/de==, Basic YWxhZGRpbjpvcGVuc2VzYW1l",
            #"BEARER Scope="a", ERROR=invalid_token, scope="b""#,
        ])
        #expect(
            challenges == [
                AuthenticationChallenge(scheme: "negotiate", token68: "abc+/de=="),
                AuthenticationChallenge(scheme: "basic", token68: "YWxhZGRpbjpvcGVuc2VzYW1l"),
                // A parameter named twice keeps its first value.
                AuthenticationChallenge(scheme: "bearer", parameters: ["scope": "a", "error": "invalid_token"]),
            ]
        )
    }

    @Test(
        "a challenge that breaks the grammar is dropped, the well-formed ones around it kept",
        arguments: [
            // An unterminated quoted string.
            #"Basic realm="ok", Bearer error="unterminated"#,
            // A control byte inside a quoted value (it must reach no error or log).
            "Basic realm=\"ok\", Bearer error=\"a\u{1B}[31mb\"",
            // A value that is neither a token nor a quoted string.
            #"Basic realm="ok", Bearer error=@"#,
        ]
    )
    func brokenChallengeDropped(field: String) {
        #expect(AuthenticationChallenge.parse([field]) == [AuthenticationChallenge(scheme: "basic", parameters: ["realm": "ok"])])
    }

    @Test(
        "garbage gives no challenge, and nothing fails",
        arguments: ["", " , ,, ", "==", "=a, =b", "\"quoted\"", "a=b", "\u{0}"]
    )
    func garbage(field: String) {
        #expect(AuthenticationChallenge.parse([field]).isEmpty)
    }

    @Test("a field of thousands of challenges and parameters keeps at most 32 of each")
    func bounded() throws {
        let many = Array(repeating: "Basic realm=\"x\"", count: 5_000).joined(separator: ", ")
        #expect(AuthenticationChallenge.parse([many]).count == 32)
        let parameters = (0..<5_000).map { "p\($0)=v" }.joined(separator: ", ")
        let one = try #require(AuthenticationChallenge.parse(["Bearer " + parameters]).first)
        #expect(one.parameters.count == 32)
        #expect(one.parameters["p0"] == "v")
    }

    /// The demo server's bearer route answers an unknown token with a real 401 and its challenge.
    @Test("the challenge of a real 401, read from the response head", arguments: TransportKind.allCases)
    func realChallenge(_ transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            let error = await expectParleyError(.unacceptableStatus) {
                try await client.send(UnknownToken())
            }
            let head = try #require(error?.response)
            #expect(head.status.code == 401)
            let challenges = AuthenticationChallenge.parse(head.headerFields[values: .wwwAuthenticate])
            #expect(challenges == [AuthenticationChallenge(scheme: "bearer", parameters: ["error": "invalid_token"])])
        }
    }
}
