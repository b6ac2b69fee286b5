import Foundation
import Parley
import Testing

@testable import ParleyTestSupport

@Suite(
    "parley get keeps cookies for the invocation (httpbin)",
    .enabled(
        if: ProcessInfo.processInfo.environment["PARLEY_HTTPBIN_URL"] != nil && ParleyRun.executable != nil,
        "needs httpbin (scripts/start-peers) and the built parley executable"
    )
)
struct HTTPCookieCommandTests {
    @Test("a cookie set on a redirect hop is sent to the next hop: /cookies/set?a=b then shows a")
    func redirectHop() async throws {
        let httpbin = try #require(ProcessInfo.processInfo.environment["PARLEY_HTTPBIN_URL"])
        let run = try await ParleyRun(["get", "\(httpbin)/cookies/set?a=b", "--pretty", "none"])
        #expect(run.status == 0, "\(run.error)")
        let answer = try JSONDecoder().decode(JSONValue.self, from: run.output)
        #expect(answer == ["cookies": ["a": "b"]])
    }
}

@Suite(
    "parley --curl prints a command that sends the same request (httpbin, curl)",
    .enabled(
        if: ProcessInfo.processInfo.environment["PARLEY_HTTPBIN_URL"] != nil && ParleyRun.executable != nil
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"),
        "needs httpbin (scripts/start-peers), the built parley executable and curl"
    )
)
struct HTTPCurlCommandTests {
    @Test("the printed command, run by the shell with curl, reaches httpbin as parley's own request does")
    func sameRequest() async throws {
        let httpbin = try #require(ProcessInfo.processInfo.environment["PARLEY_HTTPBIN_URL"])
        let arguments = [
            "post", "\(httpbin)/anything/it's?q=a b", "name=Ada", "quote=it's $HOME", "X-Trace:a'b", "--bearer", "t0k3n",
            "--pretty", "none",
        ]
        let printed = try await ParleyRun(arguments + ["--curl"])
        #expect(printed.status == 0, "\(printed.error)")
        let command = String(decoding: printed.output, as: UTF8.self).trimmingCharacters(in: .newlines)
        #expect(command.hasPrefix("curl "), "\(command)")
        #expect(!command.contains("t0k3n"), "the token is a variable: \(command)")
        #expect(printed.error.contains("AUTHORIZATION"), "\(printed.error)")
        let sent = try await ParleyRun(arguments)
        #expect(sent.status == 0, "\(sent.error)")
        // The command as printed, by a shell, with the secret's variable set.
        let folder = try CommandScratchFolder()
        let output = folder.path + "/curl.out"
        let exit = try await runToEnd(
            "/bin/sh",
            ["-c", command + " --silent --show-error"],
            environment: ["AUTHORIZATION": "Bearer t0k3n", "PATH": "/usr/bin:/bin"],
            output: output,
            error: folder.path + "/curl.err"
        )
        #expect(exit.code == 0 && !exit.bySignal)
        let viaCurl = try JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: URL(fileURLWithPath: output)))
        let viaParley = try JSONDecoder().decode(JSONValue.self, from: sent.output)
        for key in ["method", "url", "json", "args", "data"] {
            #expect(
                viaCurl[key] == viaParley[key],
                "\(key): \(String(describing: viaCurl[key])) vs \(String(describing: viaParley[key]))"
            )
        }
        var curlHeaders = viaCurl["headers"]?.objectValue ?? [:]
        var parleyHeaders = viaParley["headers"]?.objectValue ?? [:]
        // curl's --compressed names the codings it supports itself (br, zstd too).
        curlHeaders["Accept-Encoding"] = nil
        parleyHeaders["Accept-Encoding"] = nil
        #expect(curlHeaders == parleyHeaders)
        #expect(parleyHeaders["Authorization"] == "Bearer t0k3n")
    }
}

@Suite(
    "parley --session keeps cookies, credentials and header fields between runs (httpbin)",
    .enabled(
        if: ProcessInfo.processInfo.environment["PARLEY_HTTPBIN_URL"] != nil && ParleyRun.executable != nil,
        "needs httpbin (scripts/start-peers) and the built parley executable"
    )
)
struct HTTPSessionCommandTests {
    @Test("cookies set in one run are sent in the next; --auth and X-Team: kept; one file per host, owner only")
    func session() async throws {
        let httpbin = try #require(ProcessInfo.processInfo.environment["PARLEY_HTTPBIN_URL"])
        let config = try CommandScratchFolder()
        let environment: [String: String?] = ["XDG_CONFIG_HOME": config.path]
        let set = try await ParleyRun(
            ["get", "\(httpbin)/cookies/set?flavour=oatmeal", "--session", "work", "--auth", "ada:lovelace", "X-Team:blue"],
            environment: environment
        )
        #expect(set.status == 0, "\(set.error)")
        let cookies = try await ParleyRun(["get", "\(httpbin)/cookies", "--session", "work"], environment: environment)
        #expect(try JSONDecoder().decode(JSONValue.self, from: cookies.output) == ["cookies": ["flavour": "oatmeal"]])
        let authorized = try await ParleyRun(
            ["get", "\(httpbin)/basic-auth/ada/lovelace", "--session", "work"],
            environment: environment
        )
        #expect(authorized.status == 0, "the session's credentials: \(authorized.error)")
        let headers = try await ParleyRun(["get", "\(httpbin)/headers", "--session", "work"], environment: environment)
        let echoed = try JSONDecoder().decode(JSONValue.self, from: headers.output)
        #expect(echoed["headers"]?["X-Team"] == "blue")
        // Another session, or none, has none of it.
        let fresh = try await ParleyRun(["get", "\(httpbin)/cookies", "--session", "other"], environment: environment)
        #expect(try JSONDecoder().decode(JSONValue.self, from: fresh.output) == ["cookies": [:]])
        let port = URL(string: httpbin)?.port ?? 80
        let file = config.path + "/parley/sessions/127.0.0.1_\(port)/work.json"
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let saved = try String(contentsOfFile: file, encoding: .utf8)
        #expect(saved.contains("oatmeal") && saved.contains("X-Team"))
    }
}
