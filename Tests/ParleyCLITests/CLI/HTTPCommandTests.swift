import Foundation
import ParleyDemoServer
import Testing

@testable import ParleyTestSupport

/// `parley get|head|post|put|patch|delete` as a person runs them: the built executable against an in-process demo
/// server, standard output and standard error captured in files (not terminals, so output is plain unless --pretty).
@Suite(
    "parley get, head, post, put, patch and delete as child processes",
    .enabled(if: ParleyRun.executable != nil, "needs the built parley executable (PARLEY_BIN, or next to the test bundle)"),
    .timeLimit(.minutes(3))
)
struct HTTPCommandTests {
    @Test(
        "each method reaches the server as itself, and the piped answer is the body as received",
        arguments: ["get", "post", "put", "patch", "delete"]
    )
    func methods(_ command: String) async throws {
        try await withDemoServer { server in
            let run = try await ParleyRun([command, "\(server.baseURL)/echo"])
            #expect(run.status == 0, "\(run.error)")
            #expect(run.error.isEmpty, "\(run.error)")
            let echo = try JSONDecoder().decode(Echo.self, from: run.output)
            #expect(echo.method == command.uppercased())
            #expect(echo.bodyLength == 0, "no items, no body")
            #expect(echo.header("content-type").isEmpty)
            #expect(echo.header("accept") == ["*/*"])
            #expect(echo.header("user-agent") == ["parley"])
            #expect(run.output.last == UInt8(ascii: "}"), "piped output gets no added line break")
        }
    }

    @Test("parley head prints the response status line and header fields on standard output")
    func head() async throws {
        try await withDemoServer { server in
            let run = try await ParleyRun(["head", "\(server.baseURL)/echo"])
            #expect(run.status == 0, "\(run.error)")
            let text = run.text
            #expect(text.hasPrefix("200 OK\n"), "\(text)")
            #expect(text.contains("Content-Type: application/json"), "\(text)")
            #expect(text.hasSuffix("\n\n"), "\(text)")
        }
    }

    @Test("key=value, key:=json, Header:value, Header:, Header; and name==value each reach the server")
    func itemKinds() async throws {
        try await withDemoServer { server in
            let run = try await ParleyRun([
                "post", "\(server.baseURL)/echo?x=1", "name=Ada", "n:=42", #"tags:= ["a", {"b": null}] "#, "X-Trace:  abc ",
                "X-Empty;", "Accept:", "q==a b&c", "name=Bob", "X-Trace:def",
            ])
            #expect(run.status == 0, "\(run.error)")
            let echo = try JSONDecoder().decode(Echo.self, from: run.output)
            #expect(
                echo.body == #"{"name":["Ada","Bob"],"n":42,"tags":["a",{"b":null}]}"#,
                "members in order; a repeated key is an array"
            )
            #expect(echo.header("content-type") == ["application/json"])
            #expect(echo.header("x-trace") == ["abc", "def"], "values trimmed; a repeated header is sent twice")
            #expect(echo.header("x-empty") == [""])
            #expect(echo.header("accept").isEmpty, "'Accept:' removes the default Accept")
            #expect(echo.queryItems == [["x", "1"], ["q", "a b&c"]])
        }
    }

    @Test("a JSON body asks for JSON like httpie: Accept: application/json, */*;q=0.5")
    func jsonAccept() async throws {
        try await withDemoServer { server in
            let run = try await ParleyRun(["put", "\(server.baseURL)/echo", "ok:=true"])
            #expect(run.status == 0, "\(run.error)")
            let echo = try JSONDecoder().decode(Echo.self, from: run.output)
            #expect(echo.header("accept") == ["application/json, */*;q=0.5"])
            #expect(echo.body == #"{"ok":true}"#)
        }
    }

    @Test("a backslash makes a separator an ordinary character, in names and in values")
    func escaping() async throws {
        try await withDemoServer { server in
            let ok = try await ParleyRun([
                "post", "\(server.baseURL)/echo", #"a\=b=c"#, #"X-Path:C\:\\tmp"#, "url=http://h:1/p?q=1", #"k\:=v"#,
                #"p\=q==1"#, #"plain=back\slash"#, #"semi\;colon=1"#, #"at=\@home"#, "mail=ada@example.com",
            ])
            #expect(ok.status == 0, "\(ok.error)")
            let echo = try JSONDecoder().decode(Echo.self, from: ok.output)
            let expected =
                #"{"a=b":"c","url":"http://h:1/p?q=1","k:":"v","plain":"back\\slash","semi;colon":"1","at":"@home","#
                + #""mail":"ada@example.com"}"#
            #expect(echo.body == expected)
            #expect(echo.header("x-path") == [#"C:\tmp"#])
            #expect(echo.queryItems == [["p=q", "1"]])
        }
    }

    @Test("key=@file and key:=@file take a field's text or JSON from a file")
    func fileFields() async throws {
        let folder = try CommandScratchFolder()
        try Data("line one\n\"two\"".utf8).write(to: URL(fileURLWithPath: folder.path + "/note.txt"))
        try Data(#"{ "id": 7, "tags": [ "x" ] }"#.utf8).write(to: URL(fileURLWithPath: folder.path + "/profile.json"))
        try await withDemoServer { server in
            let run = try await ParleyRun([
                "patch", "\(server.baseURL)/echo", "note=@\(folder.path)/note.txt", "profile:=@\(folder.path)/profile.json",
            ])
            #expect(run.status == 0, "\(run.error)")
            let echo = try JSONDecoder().decode(Echo.self, from: run.output)
            #expect(echo.body == #"{"note":"line one\n\"two\"","profile":{"id":7,"tags":["x"]}}"#)
        }
    }

    @Test("--form sends key=value fields as application/x-www-form-urlencoded")
    func form() async throws {
        try await withDemoServer { server in
            let run = try await ParleyRun(["post", "--form", "\(server.baseURL)/echo", "user=ada lovelace", "x=a&b=c", "é=ü"])
            #expect(run.status == 0, "\(run.error)")
            let echo = try JSONDecoder().decode(Echo.self, from: run.output)
            #expect(echo.body == "user=ada%20lovelace&x=a%26b%3Dc&%C3%A9=%C3%BC")
            #expect(echo.header("content-type") == ["application/x-www-form-urlencoded; charset=utf-8"])
            #expect(echo.header("accept") == ["*/*"])
        }
    }

    @Test("--auth user:password sends Basic credentials, which --verbose and errors never show")
    func basicAuth() async throws {
        let password = "Analytical:Engine ✓ 1843"
        let encoded = Data("ada:\(password)".utf8).base64EncodedString()
        try await withDemoServer { server in
            let run = try await ParleyRun(["get", "-v", "--auth", "ada:\(password)", "\(server.baseURL)/auth/basic"])
            #expect(run.status == 0, "\(run.error)")
            #expect(run.text == #"{"user":"ada"}"#)
            #expect(run.error.contains("Authorization: Basic <redacted>\n"), "\(run.error)")
            #expect(!run.error.contains(encoded) && !run.error.contains("Engine"), "\(run.error)")

            let wrong = try await ParleyRun(["get", "-v", "--auth", "ada:not-the-Engine", "\(server.baseURL)/auth/basic"])
            #expect(wrong.status == 4, "\(wrong.error)")
            #expect(wrong.error.contains("401"), "\(wrong.error)")
            #expect(!wrong.error.contains("not-the-Engine"), "\(wrong.error)")

            let empty = try await ParleyRun(["get", "--auth", "ada:", "\(server.baseURL)/echo"])
            #expect(empty.status == 0, "\(empty.error)")
            let echo = try JSONDecoder().decode(Echo.self, from: empty.output)
            #expect(echo.header("authorization") == ["Basic " + Data("ada:".utf8).base64EncodedString()])
        }
    }

    @Test("--bearer sends the token, which the server accepts and the output never shows")
    func bearer() async throws {
        try await withDemoServer { server in
            let issued = try await ParleyRun(["post", "\(server.baseURL)/auth/token"])
            #expect(issued.status == 0, "\(issued.error)")
            let answer = try #require(try JSONSerialization.jsonObject(with: issued.output) as? [String: Any])
            let token = try #require(answer["access_token"] as? String)
            let run = try await ParleyRun(["get", "--verbose", "--bearer", token, "\(server.baseURL)/auth/me"])
            #expect(run.status == 0, "\(run.error)")
            #expect(run.text == #"{"subject":"demo","token":"1"}"#, "the server saw the token")
            #expect(run.error.contains("Authorization: Bearer <redacted>\n"), "\(run.error)")
            #expect(!run.error.contains(token) && !run.text.contains(token))

            let stale = "not-a-token-\(UUID().uuidString)"
            let refused = try await ParleyRun(["get", "-v", "--bearer", stale, "\(server.baseURL)/auth/me"])
            #expect(refused.status == 4, "\(refused.error)")
            #expect(refused.error.contains("401 Unauthorized"), "\(refused.error)")
            #expect(!refused.error.contains(stale) && !refused.text.contains(stale))
        }
    }

    @Test("--verbose writes the request (head and body) and the response head on stderr; stdout stays the body")
    func verbose() async throws {
        try await withDemoServer { server in
            let run = try await ParleyRun(["post", "--verbose", "\(server.baseURL)/echo?x=1", "name=Ada", "q==2", "X-Trace:abc"])
            #expect(run.status == 0, "\(run.error)")
            let echo = try JSONDecoder().decode(Echo.self, from: run.output)
            #expect(echo.body == #"{"name":"Ada"}"#)
            let host = String(server.baseURL.dropFirst("http://".count))
            let request = """
                POST /echo?x=1&q=2
                Host: \(host)
                User-Agent: parley
                Accept-Encoding: gzip, deflate
                Accept: application/json, */*;q=0.5
                Content-Type: application/json
                X-Trace: abc
                Content-Length: 14

                {"name":"Ada"}

                200 OK
                Content-Type: application/json; charset=utf-8
                Content-Length: \(run.output.count)

                """
            #expect(run.error.hasPrefix(request), "\(run.error)")
        }
    }

    @Test("piped output is exactly the body bytes: binary, with and without a length, JSON not re-indented")
    func pipedBytes() async throws {
        try await withDemoServer { server in
            for query in ["n=300000", "n=70001&chunked=true"] {
                let run = try await ParleyRun(["get", "\(server.baseURL)/bytes?\(query)"])
                #expect(run.status == 0, "\(run.error)")
                let count = Int(query.dropFirst(2).prefix { $0.isNumber }) ?? 0
                #expect(run.output == Data((0..<count).map { UInt8($0 % 251) }), "\(query): \(run.output.count) bytes")
            }
            let json = try await ParleyRun([
                "get", "\(server.baseURL)/status/200", #"body=={"b": 1,"a":[ ]}"#, "contentType==application/json",
            ])
            #expect(json.text == #"{"b": 1,"a":[ ]}"#)
        }
    }

    @Test("--pretty format and all indent JSON by two spaces, keys in the server's order, numbers as sent; all colours")
    func pretty() async throws {
        let body = #"{"b":1.50,"a":[true,null,"x\u00e9"],"e":{},"f":[ ],"n":{"k":-2e3}}"#
        func key(_ name: String) -> String { "\u{1B}[34;1m\"\(name)\"\u{1B}[0m" }
        func value(_ text: String, _ color: String) -> String { "\u{1B}[\(color)m\(text)\u{1B}[0m" }
        try await withDemoServer { server in
            let url = "\(server.baseURL)/status/200"
            let format = try await ParleyRun(["get", "--pretty", "format", url, "body==\(body)", "contentType==application/json"])
            #expect(format.status == 0, "\(format.error)")
            #expect(
                format.text == """
                    {
                      "b": 1.50,
                      "a": [
                        true,
                        null,
                        "x\\u00e9"
                      ],
                      "e": {},
                      "f": [],
                      "n": {
                        "k": -2e3
                      }
                    }

                    """
            )
            let all = try await ParleyRun(["get", "--pretty", "all", url, "body==\(body)", "contentType==application/json"])
            let (number, literal, string) = ("36", "35", "32")
            let colored = """
                {
                  \(key("b")): \(value("1.50", number)),
                  \(key("a")): [
                    \(value("true", literal)),
                    \(value("null", literal)),
                    \(value(#""x\u00e9""#, string))
                  ],
                  \(key("e")): {},
                  \(key("f")): [],
                  \(key("n")): {
                    \(key("k")): \(value("-2e3", number))
                  }
                }

                """
            #expect(all.text == colored)
            let colors = try await ParleyRun([
                "get", "--pretty", "colors", url, #"body=={"k": [1]}"#, "contentType==application/json",
            ])
            #expect(colors.text == "{\(key("k")): [\(value("1", number))]}\n", "colours, the server's layout")

            let invalid = try await ParleyRun([
                "get", "--pretty", "all", url, #"body=={"k": nope}"#, "contentType==application/json",
            ])
            #expect(invalid.text == "{\"k\": nope}\n", "JSON that does not parse: as received, with a final line break")
            let text = try await ParleyRun(["get", "--pretty", "all", url, "body==plain text"])
            #expect(text.text == "plain text\n", "not JSON: as received, with a final line break")
        }
    }

    @Test(
        "on a terminal (a pseudo-terminal from script) JSON is indented and coloured without --pretty",
        .enabled(if: ParleyRun.script != nil, "needs util-linux script for a pseudo-terminal")
    )
    func terminal() async throws {
        try await withDemoServer { server in
            let request = ["get", "\(server.baseURL)/status/200", #"body=={"b":1,"a":"x"}"#, "contentType==application/json"]
            let run = try await ParleyRun(request, onTerminal: true, environment: ["NO_COLOR": nil])
            #expect(run.status == 0, "\(run.text)")
            let (key, reset) = ("\u{1B}[34;1m", "\u{1B}[0m")
            let expected = "{\n  \(key)\"b\"\(reset): \u{1B}[36m1\(reset),\n  \(key)\"a\"\(reset): \u{1B}[32m\"x\"\(reset)\n}\n"
            #expect(run.text.replacing("\r\n", with: "\n") == expected, "\(run.text.debugDescription)")

            let noColor = try await ParleyRun(request, onTerminal: true, environment: ["NO_COLOR": "1"])
            #expect(noColor.text.replacing("\r\n", with: "\n") == "{\n  \"b\": 1,\n  \"a\": \"x\"\n}\n", "NO_COLOR: no colours")

            let plain = try await ParleyRun(request + ["--pretty", "none"], onTerminal: true)
            #expect(plain.text == #"{"b":1,"a":"x"}"#, "--pretty none: the bytes as received, even on a terminal")
        }
    }

    @Test("a 4xx answer: its body on stdout, exit status 4, the ParleyError on stderr")
    func clientError() async throws {
        try await withDemoServer { server in
            let run = try await ParleyRun(["get", "\(server.baseURL)/status/404", "body==no such user"])
            #expect(run.status == 4, "\(run.error)")
            #expect(run.text == "no such user")
            #expect(
                run.error.hasPrefix(
                    "parley: Parley unacceptableStatus error: GET \(server.baseURL)/status/404?body=no%20such%20user"
                ),
                "\(run.error)"
            )
            #expect(run.error.contains("404 Not Found"), "\(run.error)")

            let missing = try await ParleyRun(["get", "\(server.baseURL)/no-such-route"])
            #expect(missing.status == 4, "\(missing.error)")
            #expect(missing.error.contains("404"), "\(missing.error)")
        }
    }

    @Test("a 5xx answer: its body on stdout and exit status 5")
    func serverError() async throws {
        try await withDemoServer { server in
            let run = try await ParleyRun(["delete", "\(server.baseURL)/status/503", "body==down for maintenance"])
            #expect(run.status == 5, "\(run.error)")
            #expect(run.text == "down for maintenance")
            #expect(run.error.contains("503 Service Unavailable"), "\(run.error)")
        }
    }

    @Test("a refused connection: exit status 1, a transport error on stderr, nothing on stdout")
    func connectionRefused() async throws {
        let url = try await DemoServer.closedPortURL()
        let run = try await ParleyRun(["get", url.absoluteString + "/echo"])
        #expect(run.status == 1, "\(run.error)")
        #expect(run.error.hasPrefix("parley: Parley transport error"), "\(run.error)")
        #expect(run.output.isEmpty)
    }

    @Test("--timeout fires while waiting for the head and while reading the body: exit status 2")
    func timeout() async throws {
        try await withDemoServer { server in
            let head = try await ParleyRun(["get", "--timeout", "1", "\(server.baseURL)/slow", "ms==60000"])
            #expect(head.status == 2, "\(head.error)")
            #expect(head.error.contains("Parley timeout error"), "\(head.error)")
            #expect(head.output.isEmpty)

            // The head must arrive within the timeout for the body's phase to be the one that times out: 8 s, not
            // 1 s, so that a slow machine (or ThreadSanitizer) starting the process does not time out on the head.
            let body = try await ParleyRun(["get", "--timeout", "8", "\(server.baseURL)/hang", "id==cli-\(UUID().uuidString)"])
            #expect(body.status == 2, "\(body.error)")
            #expect(body.error.contains("did not arrive in full within --timeout 8.0 s"), "\(body.error)")
        }
    }

    @Test("--retries N retries a failing GET up to N times, each retry noted on stderr")
    func retries() async throws {
        try await withDemoServer { server in
            let key = UUID().uuidString
            let run = try await ParleyRun(["get", "--retries", "2", "\(server.baseURL)/flaky", "key==\(key)", "failures==2"])
            #expect(run.status == 0, "\(run.error)")
            #expect(run.text == #"{"attempts":3,"key":"\#(key)"}"#)
            #expect(run.error.contains("GET attempt 1 failed (503)"), "\(run.error)")
            #expect(run.error.contains("GET attempt 2 failed (503)"), "\(run.error)")

            let other = UUID().uuidString
            let short = try await ParleyRun(["get", "--retries", "1", "\(server.baseURL)/flaky", "key==\(other)", "failures==2"])
            #expect(short.status == 5, "\(short.error)")
            #expect(short.text == #"{"error":"flaky","attempt":2}"#, "the last answer's body")
        }
    }

    @Test("redirects are followed; --max-redirects 0 prints the redirect itself and exits 3")
    func redirects() async throws {
        try await withDemoServer { server in
            let followed = try await ParleyRun(["get", "\(server.baseURL)/redirect/chain/2"])
            #expect(followed.status == 0, "\(followed.error)")
            #expect(try JSONDecoder().decode(Echo.self, from: followed.output).path == "/echo")
            let kept = try await ParleyRun(["get", "--max-redirects", "0", "\(server.baseURL)/redirect/chain/2"])
            #expect(kept.status == 3, "\(kept.error)")
            let loop = try await ParleyRun(["get", "\(server.baseURL)/redirect/loop"])
            #expect(loop.status == 6, "\(loop.error)")
        }
    }

    @Test(
        "bad items and options are usage errors (exit 64) that say what is wrong, before anything is sent",
        arguments: [
            (["n:=4x"], "is not valid JSON"), (["just-a-word"], "is not a request item"),
            (["Bad Header:x"], "not a valid header name"),
            (["=v"], "has no name"), (["f@/etc/hosts"], "parley upload"), (["--form", "n:=1"], "--form"),
            (["--auth", "ada"], "user:password"), (["--auth", "a:b", "--bearer", "t"], "not both"), (["X-A;b"], "Header;"),
            (["--timeout", "0"], "--timeout"), (["f=@/no/such/file"], "cannot read"),
        ]
    )
    func usageErrors(_ arguments: [String], _ message: String) async throws {
        let run = try await ParleyRun(["post", "http://127.0.0.1:9/echo"] + arguments)
        #expect(run.status == 64, "\(run.error)")
        #expect(run.error.contains(message), "\(run.error)")
        #expect(run.output.isEmpty)
    }

    @Test("parley --help lists the HTTP commands; each command's help has examples, item syntax and exit statuses")
    func help() async throws {
        let top = try await ParleyRun(["--help"])
        #expect(top.status == 0)
        for command in ["get", "head", "post", "put", "patch", "delete"] {
            #expect(top.text.contains("\n  \(command) "), "\(command) in \(top.text)")
            let help = try await ParleyRun([command, "--help"])
            #expect(help.status == 0)
            for part in ["Examples:\n  parley \(command) ", "key:=json", "name==value", "Exit status:", "--pretty <mode>"] {
                #expect(help.text.contains(part), "\(command) --help lacks \(part)")
            }
        }
    }
}

extension ParleyRun {
    /// Standard output as UTF-8 text.
    var text: String { String(decoding: output, as: UTF8.self) }
}

/// Runs `body` with a fresh demo server on 127.0.0.1, stopped afterwards.
private func withDemoServer(_ body: (DemoServer) async throws -> Void) async throws {
    try await withDemoClient(.asyncHTTPClient) { _, server in try await body(server) }
}
