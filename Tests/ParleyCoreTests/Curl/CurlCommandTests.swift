import Foundation
import Testing

@testable import Parley
@testable import ParleyTestSupport

/// `CurlCommand` built from requests, and `ParleyError.curlCommand` from real calls to the demo server.
@Suite("curl export: requests as curl command lines, secrets redacted")
struct CurlCommandTests {
    private static let base = URL(string: "http://127.0.0.1:8080")

    private func request(_ method: HTTPRequest.Method, _ path: String, _ fields: HTTPFields = [:]) -> HTTPRequest {
        HTTPRequest(method: method, scheme: nil, authority: nil, path: path, headerFields: fields)
    }

    @Test("the method: GET and a POST with a body implied, HEAD as --head, others with -X")
    func methods() {
        #expect(CurlCommand(request(.get, "/a"), baseURL: Self.base).description == "curl 'http://127.0.0.1:8080/a'")
        #expect(CurlCommand(request(.head, "/a"), baseURL: Self.base).description == "curl --head 'http://127.0.0.1:8080/a'")
        #expect(
            CurlCommand(request(.post, "/a"), baseURL: Self.base, body: .data(Data("x".utf8))).description
                == "curl 'http://127.0.0.1:8080/a' --data-binary 'x'"
        )
        #expect(CurlCommand(request(.post, "/a"), baseURL: Self.base).description == "curl -X 'POST' 'http://127.0.0.1:8080/a'")
        #expect(
            CurlCommand(request(.delete, "/a?b=c&d"), baseURL: Self.base).description
                == "curl -X 'DELETE' 'http://127.0.0.1:8080/a?b=c&d'"
        )
    }

    @Test("header fields quoted for the shell; an empty value as 'Name;'; framing fields left to curl")
    func fields() throws {
        var fields = HTTPFields()
        fields[.accept] = "application/json"
        fields[try #require(HTTPField.Name("X-Quote"))] = "it's $HOME `x`"
        fields[try #require(HTTPField.Name("X-Empty"))] = ""
        fields[.contentLength] = "3"
        fields[.transferEncoding] = "chunked"
        let command = CurlCommand(request(.get, "/a", fields), baseURL: Self.base).description
        #expect(
            command
                == #"curl 'http://127.0.0.1:8080/a' -H 'Accept: application/json' -H 'X-Quote: it'\''s $HOME `x`' -H 'X-Empty;'"#
        )
    }

    @Test("secrets: Authorization, Cookie and the fields named redacted, or shell variables; user info and query items too")
    func secrets() throws {
        var fields = HTTPFields()
        fields[.authorization] = "Bearer t0ken"
        fields[.cookie] = "session=c00kie"
        let apiKey = try #require(HTTPField.Name("X-API-Key"))
        fields[apiKey] = "k3y"
        let url = try #require(URL(string: "http://user:pa55@127.0.0.1:8080"))
        let sent = request(.get, "/a?api_key=q1&page=2", fields)
        let redacted = CurlCommand(sent, baseURL: url, secretFields: [apiKey], secretQueryItems: ["api_key"]).description
        #expect(
            redacted
                == "curl 'http://<redacted>:<redacted>@127.0.0.1:8080/a?api_key=<redacted>&page=2' -H 'Authorization: <redacted>' "
                + "-H 'Cookie: <redacted>' -H 'X-API-Key: <redacted>'"
        )
        let variables = CurlCommand(sent, baseURL: Self.base, secrets: .variables, secretFields: [apiKey]).description
        #expect(variables.contains(#"-H 'Authorization: '"$AUTHORIZATION""#))
        #expect(variables.contains(#"-H 'X-API-Key: '"$X_API_KEY""#))
        for secret in ["t0ken", "c00kie", "k3y", "pa55"] {
            #expect(!redacted.contains(secret) && !variables.contains(secret))
        }
    }

    @Test("a Unix socket's URL as curl's --unix-socket")
    func unixSocket() throws {
        let url = try #require(URL(string: "http+unix://%2Fvar%2Frun%2Fdocker.sock"))
        let command = CurlCommand(request(.get, "/v1.43/info"), baseURL: url)
        #expect(command.description == "curl --unix-socket '/var/run/docker.sock' 'http://localhost/v1.43/info'")
    }

    @Test("a body starting with @ is sent as it is (--data-raw); brackets in the URL are not curl's globs (-g)")
    func dataRawAndGlobs() {
        let at = CurlCommand(request(.post, "/a?filter[name]=x"), baseURL: Self.base, body: .data(Data("@/etc/passwd".utf8)))
        #expect(at.description == "curl -g 'http://127.0.0.1:8080/a?filter[name]=x' --data-raw '@/etc/passwd'")
        let token = CurlCommand(request(.get, "/a?token=t0k&q=1"), baseURL: Self.base)
        #expect(token.description == "curl 'http://127.0.0.1:8080/a?token=<redacted>&q=1'", "the logging middleware's list")
    }

    @Test("bodies: text quoted, bytes escaped with $'…', a file as @FILE; Accept-Encoding as --compressed")
    func bodies() {
        var fields = HTTPFields()
        fields[.acceptEncoding] = "gzip, deflate"
        let binary = CurlCommand(request(.put, "/b", fields), baseURL: Self.base, body: .data(Data([0, 0x27, 0x5C, 0x41, 0xFF])))
        #expect(binary.description == #"curl -X 'PUT' 'http://127.0.0.1:8080/b' --compressed --data-binary $'\x00\'\\A\xff'"#)
        let file = CurlCommand(request(.post, "/up"), baseURL: Self.base, body: .file("/tmp/it's.bin"))
        #expect(file.description == #"curl 'http://127.0.0.1:8080/up' --data-binary '@/tmp/it'\''s.bin'"#)
        let text = CurlCommand(request(.post, "/t"), baseURL: Self.base, body: .data(Data("line 1\nline 'two'\tü".utf8)))
        #expect(text.description == "curl 'http://127.0.0.1:8080/t' --data-binary 'line 1\nline '\\''two'\\''\tü'")
    }

    @Test(
        "ParleyError.curlCommand: the request as the transport was handed it, credentials redacted",
        arguments: TransportKind.allCases
    )
    func onErrors(transport: TransportKind) async throws {
        try await withDemoClient(
            transport,
            middlewares: [
                .bearerAuth { _ in AccessToken("sekret-bearer", expiresIn: nil) }, .apiKey("k3y-in-query", queryItem: "api_key"),
            ]
        ) { client, server in
            let error = await expectParleyError(.unacceptableStatus) { _ = try await client.send(GetData(path: "/status/404")) }
            let curl = try #require(error?.curlCommand)
            #expect(curl.hasPrefix("curl '\(server.baseURL)/status/404?api_key=<redacted>'"), "\(curl)")
            #expect(curl.contains("-H 'Authorization: <redacted>'"), "\(curl)")
            #expect(curl.contains("--compressed"), "Parley asked for gzip and deflate: \(curl)")
            #expect(!curl.contains("sekret-bearer") && !curl.contains("k3y-in-query"))
        }
    }
}
