import Foundation
import Parley
import ParleyDemoServer
import ParleyJSONRPC
import Testing

@testable import ParleyTestSupport

/// `parley rpc`'s call limits (`--timeout`, `--idle-timeout`) and `--progress`, as a person runs them: the built
/// executable against the demo server, and httpbin's `/delay/10` as a JSON-RPC endpoint that answers too late.
@Suite(
    "parley rpc: --timeout is the call's total, --idle-timeout its idle limit, --progress its token",
    .enabled(if: ParleyRun.executable != nil, "needs the built parley executable (PARLEY_BIN, or next to the test bundle)"),
    .timeLimit(.minutes(1))
)
struct RPCCommandTests {
    private static let httpbin = ProcessInfo.processInfo.environment["PARLEY_HTTPBIN_URL"]

    @Test(
        "an answer slower than --idle-timeout exits 2 naming the idle limit; slower than --timeout, naming the total",
        .enabled(if: httpbin != nil, "scripts/start-peers starts httpbin and sets PARLEY_HTTPBIN_URL")
    )
    func limitsExpire() async throws {
        let slow = try #require(Self.httpbin) + "/delay/10"
        let idle = try await ParleyRun(["rpc", slow, "sum", "[1,2]", "--timeout", "60", "--idle-timeout", "0.5"])
        #expect(idle.status == 2, "\(idle.error)")
        #expect(idle.error.contains("no answer within its idle limit of 0.5 seconds"), "\(idle.error)")
        #expect(idle.error.contains("counted from the send"), "\(idle.error)")
        let total = try await ParleyRun(["rpc", slow, "sum", "[1,2]", "--timeout", "0.5", "--idle-timeout", "30"])
        #expect(total.status == 2, "\(total.error)")
        #expect(total.error.contains("no answer within its timeout of 0.5 seconds, its total limit"), "\(total.error)")
    }

    @Test("a call within its limits prints its result; --progress lsp and mcp put the token where each protocol does")
    func withinLimits() async throws {
        let server = try await DemoServer.start()
        let rpc = "\(server.baseURL)/rpc"
        let sum = try await ParleyRun(["rpc", rpc, "sum", "[1,2,3]", "--timeout", "30", "--idle-timeout", "10"])
        #expect(sum.status == 0, "\(sum.error)")
        #expect(try JSONDecoder().decode(JSONValue.self, from: sum.output) == 6)
        let lsp = try await ParleyRun(["rpc", rpc, "echo", #"{"a": 1}"#, "--progress", "lsp", "--idle-timeout", "10"])
        #expect(lsp.status == 0, "\(lsp.error)")
        let lspParams = try JSONDecoder().decode(JSONValue.self, from: lsp.output)
        #expect(lspParams["a"] == 1)
        #expect(lspParams["workDoneToken"]?.stringValue?.hasPrefix("parley-") == true, "\(lspParams)")
        let mcp = try await ParleyRun(["rpc", rpc, "echo", #"{"name": "index"}"#, "--progress", "mcp", "--timeout", "30"])
        #expect(mcp.status == 0, "\(mcp.error)")
        let mcpParams = try JSONDecoder().decode(JSONValue.self, from: mcp.output)
        #expect(mcpParams["name"] == "index")
        #expect(mcpParams["_meta"]?["progressToken"]?.stringValue?.hasPrefix("parley-") == true, "\(mcpParams)")
        await server.stop()
    }

    @Test(
        "--header goes with the call: a 2026-07-28 MCP server refuses server/discover without its header fields",
        .enabled(if: MCP2CLIPeer.url("MODERN") != nil, "scripts/start-peers starts the MCP Python SDK 2.3 peers")
    )
    func header() async throws {
        let url = try #require(MCP2CLIPeer.url("MODERN"))
        let params = #"""
            {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
             "io.modelcontextprotocol/clientCapabilities": {},
             "io.modelcontextprotocol/clientInfo": {"name": "parley-rpc-test", "version": "1"}}}
            """#
        // What Streamable HTTP asks of every POST: both media types accepted, and the version and method.
        let headers = [
            "--header", "Accept: application/json, text/event-stream", "--header", "MCP-Protocol-Version: 2026-07-28",
            "--header", "Mcp-Method:server/discover",
        ]
        let discovered = try await ParleyRun(["rpc", url, "server/discover", params] + headers)
        #expect(discovered.status == 0, "\(discovered.error)")
        let result = try JSONDecoder().decode(JSONValue.self, from: discovered.output)
        #expect(result["supportedVersions"] == ["2026-07-28"], "\(result)")
        // The same call without the version and method: the server reads no protocol version and refuses it.
        let refused = try await ParleyRun(
            ["rpc", url, "server/discover", params, "--header", "Accept: application/json, text/event-stream"]
        )
        #expect(refused.status != 0)
        #expect(refused.error.contains("-32022"), "\(refused.error)")
        // A malformed item is a usage error that does not repeat the value (it may be a credential).
        let bad = try await ParleyRun(["rpc", url, "ping", "--header", "Authorization Bearer s3cret"])
        #expect(bad.status == 64)
        #expect(bad.error.contains("--header takes NAME:VALUE"), "\(bad.error)")
        #expect(!bad.error.contains("s3cret"), "\(bad.error)")
    }

    @Test(
        "usage errors: a limit that is not a positive number, limits or progress with --batch or --notify",
        arguments: [
            ["--timeout", "0"], ["--idle-timeout", "-1"], ["--timeout", "nan"], ["--notify", "--timeout", "5"],
            ["--notify", "--progress", "lsp"], ["--progress", "grpc"],
        ]
    )
    func usageErrors(arguments: [String]) async throws {
        let run = try await ParleyRun(["rpc", "http://127.0.0.1:1/rpc", "sum", "[1,2]"] + arguments)
        #expect(run.status == 64, "\(arguments): \(run.error)")
    }
}
