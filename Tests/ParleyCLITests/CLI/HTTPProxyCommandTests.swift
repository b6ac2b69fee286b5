import Foundation
import Parley
import ParleyDemoServer
import Testing

@testable import ParleyTestSupport

@Suite(
    "parley through proxies: --proxy, and the environment's by default (tinyproxy)",
    .enabled(
        if: ProcessInfo.processInfo.environment["PARLEY_TINYPROXY_URL"] != nil && ParleyRun.executable != nil,
        "needs tinyproxy (scripts/start-peers) and the built parley executable"
    ),
    .timeLimit(.minutes(1))
)
struct HTTPProxyCommandTests {
    private let environment = ProcessInfo.processInfo.environment

    /// How many tunnels to 127.0.0.1:`port` tinyproxy has logged (each test's server has a port of its own).
    private func tunnels(to port: Int) throws -> Int {
        let log = try String(contentsOfFile: try #require(environment["PARLEY_TINYPROXY_LOG"]), encoding: .utf8)
        return log.components(separatedBy: "CONNECT 127.0.0.1:\(port) ").count - 1
    }

    @Test("--proxy URL sends through it; http_proxy in the environment does by default; no_proxy goes direct")
    func proxies() async throws {
        let proxy = try #require(environment["PARLEY_TINYPROXY_URL"])
        for (arguments, variables, proxied) in [
            (["--proxy", proxy], ["http_proxy": nil], true),
            ([], ["http_proxy": proxy], true),
            ([], ["http_proxy": proxy, "no_proxy": "127.0.0.1"], false),
        ] as [([String], [String: String?], Bool)] {
            let server = try await DemoServer.start()
            let port = try #require(URL(string: server.baseURL)?.port)
            // Counted before and after: the log is shared, and an earlier server (of this run or another) may have had
            // this port.
            let before = try tunnels(to: port)
            let run = try await ParleyRun(["get", "\(server.baseURL)/echo"] + arguments, environment: variables)
            #expect(run.status == 0, "\(run.error)")
            #expect((try tunnels(to: port) > before) == proxied, "\(arguments) \(variables)")
            await server.stop()
        }
    }

    @Test("download, upload, rpc and mcp go through --proxy, and through the environment's proxies by default")
    func otherCommands() async throws {
        let proxy = try #require(environment["PARLEY_TINYPROXY_URL"])
        let server = try await DemoServer.start()
        let port = try #require(URL(string: server.baseURL)?.port)
        let file = try CommandInputFile(bytes: Array(repeating: 7, count: 1000))
        let runs: [([String], [String: String?])] = [
            (["download", "\(server.baseURL)/download?n=1000", file.folder.path + "/down.bin", "--proxy", proxy], [:]),
            (["download", "\(server.baseURL)/download?n=1000", file.folder.path + "/down2.bin"], ["http_proxy": proxy]),
            (["upload", "\(server.baseURL)/upload", file.path, "--proxy", proxy], [:]),
            (["upload", "\(server.baseURL)/upload", file.path], ["http_proxy": proxy]),
            (["rpc", "\(server.baseURL)/rpc", "sum", "[1,2,3]", "--proxy", proxy], [:]),
            (["rpc", "\(server.baseURL)/rpc", "sum", "[1,2,3]"], ["http_proxy": proxy]),
        ]
        for (arguments, variables) in runs {
            let before = try tunnels(to: port)
            let run = try await ParleyRun(arguments, environment: variables)
            #expect(run.status == 0, "\(arguments): \(run.error)")
            #expect(try tunnels(to: port) > before, "\(arguments) \(variables) went direct")
        }
        let direct = try await ParleyRun(
            ["rpc", "\(server.baseURL)/rpc", "sum", "[1,2,3]"],
            environment: ["http_proxy": proxy, "no_proxy": "127.0.0.1"]
        )
        #expect(direct.status == 0 && direct.text.contains("6"), "\(direct.error)")
        await server.stop()
        if let mcp = MCPCLIPeer.url("JSON"), let mcpPort = URL(string: mcp)?.port {
            let before = try tunnels(to: mcpPort)
            let run = try await ParleyRun(["mcp", "tools", mcp, "--proxy", proxy])
            #expect(run.status == 0, "\(run.error)")
            #expect(try tunnels(to: mcpPort) > before, "parley mcp went direct")
        }
        let stdio = try await ParleyRun(["mcp", "tools", "--stdio", "true", "--proxy", proxy])
        #expect(stdio.status == 64, "\(stdio.error)")
        let webSocket = try await ParleyRun(["rpc", "ws://127.0.0.1:1/rpc", "sum", "--proxy", proxy])
        #expect(webSocket.status == 64, "\(webSocket.error)")
    }

    @Test("a proxy's password never reaches the terminal, whatever fails")
    func credentials() async throws {
        let authURL = try #require(environment["PARLEY_TINYPROXY_AUTH_URL"])
        let server = try await DemoServer.start()
        let wrong = authURL.replacingOccurrences(of: "pr0xy-s3cret", with: "wr0ng-s3cret")
        let run = try await ParleyRun(["get", "\(server.baseURL)/echo", "--proxy", wrong])
        #expect(run.status != 0)
        #expect(run.error.contains("tunnel"), "\(run.error)")
        #expect(!run.error.contains("wr0ng-s3cret") && !run.text.contains("wr0ng-s3cret"))
        let invalid = try await ParleyRun(["get", "\(server.baseURL)/echo", "--proxy", "ftp://x"])
        #expect(invalid.status == 64, "\(invalid.error)")
        await server.stop()
    }
}

@Suite(
    "parley --verify, --cert, --cert-key and --pinned-pubkey against nginx with TLS",
    .enabled(
        if: ProcessInfo.processInfo.environment["PARLEY_TLS_URL"] != nil && ParleyRun.executable != nil,
        "needs nginx with TLS (scripts/start-peers) and the built parley executable"
    )
)
struct HTTPTLSCommandTests {
    private let environment = ProcessInfo.processInfo.environment

    @Test(
        "--verify CA_FILE trusts the suite's CA; --verify no trusts anything; without it the unknown CA fails, saying what to do"
    )
    func verify() async throws {
        let url = try #require(environment["PARLEY_TLS_URL"])
        let folder = try #require(environment["PARLEY_TLS_DIR"])
        let trusted = try await ParleyRun(["get", url, "--verify", folder + "/ca.pem"])
        #expect(trusted.status == 0 && trusted.text.contains("TLSv1.3"), "\(trusted.error)")
        let insecure = try await ParleyRun(["get", url, "--verify", "no"])
        #expect(insecure.status == 0, "\(insecure.error)")
        let unknown = try await ParleyRun(["get", url])
        #expect(unknown.status == 1)
        #expect(unknown.error.contains("not trusted") && unknown.error.contains("--verify"), "\(unknown.error)")
    }

    @Test("--cert and --cert-key present a client certificate (mutual TLS)")
    func clientCertificate() async throws {
        let url = try #require(environment["PARLEY_MTLS_URL"])
        let folder = try #require(environment["PARLEY_TLS_DIR"])
        let run = try await ParleyRun([
            "get", url, "--verify", folder + "/ca.pem", "--cert", folder + "/client.pem", "--cert-key", folder + "/client.key",
        ])
        #expect(run.status == 0, "\(run.error)")
        #expect(try JSONDecoder().decode(JSONValue.self, from: run.output) == ["client": "CN=parley-client"])
    }

    @Test("--pinned-pubkey: the server's pin (with a backup) connects; a wrong one fails, listing the server's pins")
    func pins() async throws {
        let url = try #require(environment["PARLEY_TLS_URL"])
        let folder = try #require(environment["PARLEY_TLS_DIR"])
        let leaf = try #require(environment["PARLEY_TLS_LEAF_PIN"])
        let other = try #require(environment["PARLEY_TLS_OTHER_PIN"])
        let pinned = try await ParleyRun([
            "get", url, "--verify", folder + "/ca.pem", "--pinned-pubkey", "sha256//\(other);sha256//\(leaf)",
        ])
        #expect(pinned.status == 0 && pinned.text.contains("TLSv1.3"), "\(pinned.error)")
        let refused = try await ParleyRun(["get", url, "--verify", folder + "/ca.pem", "--pinned-pubkey", "sha256//" + other])
        #expect(refused.status == 1, "\(refused.error)")
        #expect(refused.error.contains("sha256//" + leaf) && refused.error.contains("no pinned public key"), "\(refused.error)")
        let malformed = try await ParleyRun(["get", url, "--pinned-pubkey", "sha1//abc"])
        #expect(malformed.status == 64)
        // parley download takes the same options.
        let folder2 = try CommandScratchFolder()
        let download = try await ParleyRun([
            "download", url, folder2.path + "/answer.json", "--verify", folder + "/ca.pem", "--pinned-pubkey", "sha256//" + leaf,
        ])
        #expect(download.status == 0, "\(download.error)")
        #expect(try String(contentsOfFile: folder2.path + "/answer.json", encoding: .utf8).contains("TLSv1.3"))
        let refusedDownload = try await ParleyRun([
            "download", url, folder2.path + "/refused.json", "--verify", folder + "/ca.pem", "--pinned-pubkey",
            "sha256//" + other,
        ])
        #expect(refusedDownload.status == 1 && refusedDownload.error.contains("sha256//" + leaf), "\(refusedDownload.error)")
    }
}
