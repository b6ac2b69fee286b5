import Foundation
import Parley
import ParleyJSONRPC
import Testing

@testable import ParleyTestSupport

/// `parley mcp` as a person runs it: the built executable against the MCP Python SDK's server (`peers/mcp_peer.py`),
/// over Streamable HTTP in both answer modes and as a child process over stdio.
@Suite(
    "parley mcp against the MCP Python SDK",
    .enabled(if: ParleyRun.executable != nil, "needs the built parley executable (PARLEY_BIN, or next to the test bundle)"),
    .enabled(if: MCPCLIPeer.isRunning, "scripts/start-peers starts peers/mcp_peer.py and sets PARLEY_MCP_*")
)
struct MCPCommandTests {
    @Test("parley mcp tools prints each tool's name and description, one per line", arguments: ["JSON", "SSE"])
    func tools(mode: String) async throws {
        let url = try #require(MCPCLIPeer.url(mode))
        let run = try await ParleyRun(["mcp", "tools", url])
        #expect(run.status == 0, "\(run.error)")
        let lines = String(decoding: run.output, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 8, "\(lines)")
        #expect(lines.contains("add\tAdds two integers."))
        #expect(lines.contains("wait\tWaits, and records its cancellation."))
    }

    @Test("parley mcp call prints structuredContent, or the text content; key=value and key:=json", arguments: ["JSON", "SSE"])
    func call(mode: String) async throws {
        let url = try #require(MCPCLIPeer.url(mode))
        let sum = try await ParleyRun(["mcp", "call", url, "add", "a:=2", "b:=40"])
        #expect(sum.status == 0, "\(sum.error)")
        let value = try JSONDecoder().decode(JSONValue.self, from: sum.output)
        #expect(value == ["result": 42])
        let shout = try await ParleyRun(["mcp", "call", url, "shout", "text=hello, parley"])
        #expect(shout.status == 0, "\(shout.error)")
        #expect(String(decoding: shout.output, as: UTF8.self) == "HELLO, PARLEY\n")
    }

    @Test("a result with isError exits 1 with the tool's message on stderr; so does an unknown tool")
    func failures() async throws {
        let url = try #require(MCPCLIPeer.url("SSE"))
        let failed = try await ParleyRun(["mcp", "call", url, "fail"])
        #expect(failed.status == 1)
        #expect(failed.output.isEmpty)
        #expect(failed.error.contains("this tool always fails"), "\(failed.error)")
        let unknown = try await ParleyRun(["mcp", "call", url, "no_such_tool"])
        #expect(unknown.status == 1)
        #expect(unknown.error.contains("no_such_tool"), "\(unknown.error)")
    }

    @Test("--progress prints each progress notification on stderr")
    func progress() async throws {
        let url = try #require(MCPCLIPeer.url("SSE"))
        let run = try await ParleyRun(["mcp", "call", url, "count", "n:=2", "--progress"])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.error == "progress: 1/2 step 1 of 2\nprogress: 2/2 step 2 of 2\n", "\(run.error)")
        #expect(try JSONDecoder().decode(JSONValue.self, from: run.output) == ["result": "counted to 2"])
    }

    @Test("--stdio starts the server as a child process; --timeout exits 2 and the server hears notifications/cancelled")
    func stdioTimeout() async throws {
        let python = try #require(ProcessInfo.processInfo.environment["PARLEY_PYTHON"])
        let script = try #require(ProcessInfo.processInfo.environment["PARLEY_MCP_PEER"])
        let folder = try CommandScratchFolder()
        let log = folder.path + "/cancelled.txt"
        let command = "'\(python)' '\(script)' stdio"
        let tools = try await ParleyRun(["mcp", "tools", "--stdio", command])
        #expect(tools.status == 0, "\(tools.error)")
        #expect(String(decoding: tools.output, as: UTF8.self).contains("count\tCounts to n, reporting progress at each step.\n"))
        let run = try await ParleyRun(
            ["mcp", "call", "--stdio", command, "wait", "seconds:=60", "--timeout", "0.5"],
            environment: ["PARLEY_MCP_LOG": log]
        )
        #expect(run.status == 2, "\(run.error)")
        #expect(run.error.contains("timeout"), "\(run.error)")
        // The child recorded the cancellation of call 3 (server/discover, which this server refuses, was 1 and
        // initialize 2) before it exited.
        #expect(try String(contentsOfFile: log, encoding: .utf8) == "3\n")
    }

    @Test("this server speaks only the handshake era: found without flags, -v says so; --era 2026-07-28 fails clearly")
    func handshakeEra() async throws {
        let url = try #require(MCPCLIPeer.url("SSE"))
        let run = try await ParleyRun(["mcp", "tools", url, "-v"])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.error.hasPrefix("parley: MCP protocol 2025-11-25 (handshake era) with parley-peer "), "\(run.error)")
        let pinned = try await ParleyRun(["mcp", "tools", url, "--era", "2026-07-28"])
        #expect(pinned.status == 1)
        #expect(pinned.output.isEmpty)
        #expect(pinned.error.hasPrefix("parley: "), "\(pinned.error)")
    }

    @Test("usage errors: no target, both targets, an argument that is not key=value")
    func usage() async throws {
        #expect(try await ParleyRun(["mcp", "tools"]).status == 64)
        #expect(try await ParleyRun(["mcp", "tools", "http://127.0.0.1:1/mcp", "--stdio", "true"]).status == 64)
        #expect(try await ParleyRun(["mcp", "call", "http://127.0.0.1:1/mcp", "add", "oops"]).status == 64)
    }
}

/// The MCP peers' URLs for the command line tests.
enum MCPCLIPeer {
    static func url(_ mode: String) -> String? {
        ProcessInfo.processInfo.environment[mode == "JSON" ? "PARLEY_MCP_JSON_URL" : "PARLEY_MCP_SSE_URL"]
    }

    static var isRunning: Bool {
        url("JSON") != nil && url("SSE") != nil && ProcessInfo.processInfo.environment["PARLEY_MCP_PEER"] != nil
            && ProcessInfo.processInfo.environment["PARLEY_PYTHON"] != nil
    }
}
