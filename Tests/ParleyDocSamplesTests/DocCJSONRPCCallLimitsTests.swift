// swift-format-ignore-file
// Laid out line for line as the swift blocks of the article it compiles (scripts/check-docs).
import Foundation
import Parley
import ParleyDemoServer
import ParleyJSONRPC
import ParleyJSONRPCStdio
import Testing

// The Swift blocks of the section "Call limits" of Sources/ParleyJSONRPC/ParleyJSONRPC.docc/JSONRPC.md, run against
// the demo server and against the MCP Python SDK's server that scripts/start-peers names (launched over stdio).
extension DocCJSONRPC {
    static let environment = ProcessInfo.processInfo.environment

    /// The section's declarations of the MCP server it launches: compiled, not run (the suite takes the Python and the
    /// script that scripts/start-peers names).
    static func declarationsOfTheCallLimitsSection() {
let python = URL(filePath: "/usr/bin/python3")
let script = "peers/mcp_peer.py"                             // in a checkout of Parley
        _ = (python, script)
    }

    @Suite("DocC: JSON-RPC call limits", .timeLimit(.minutes(1)))
    struct CallLimitsExamples {
        @Test("a call within its total and idle limits, over HTTP")
        func overHTTP() async throws {
            let server = try await DemoServer.start()
            let rpc = JSONRPCClient(http: Client(baseURL: try #require(URL(string: server.baseURL))), path: "/rpc")
print(try await rpc.call(Sum(params: [1, 2]), limits: JSONRPCCallLimits(total: .seconds(30), idle: .seconds(10))))   // 3
            #expect(try await rpc.call(Sum(params: [1, 2]), limits: JSONRPCCallLimits(total: .seconds(30), idle: .seconds(10))) == 3)
            await server.stop()
        }

        @Test(
            "progress restarts the idle limit; the total caps a call whose progress never stops, and the server is told",
            .enabled(
                if: environment["PARLEY_PYTHON"] != nil && environment["PARLEY_MCP_PEER"] != nil,
                "scripts/start-peers names PARLEY_PYTHON and PARLEY_MCP_PEER"
            )
        )
        func progress() async throws {
            let python = URL(fileURLWithPath: try #require(environment["PARLEY_PYTHON"]))
            let script = try #require(environment["PARLEY_MCP_PEER"])
let server = try JSONRPCStreamChannel.launch(
    executable: python, arguments: [script, "stdio"], standardError: .nullDevice, framing: .newlineDelimited
)
let mcp = MCPClient(channel: server)                         // cancels with notifications/cancelled
try await mcp.initialize()
let ticking = mcp.rpc.call(
    MCPCallTool(name: "tick", arguments: ["n": 15, "interval": 0.2]),   // 3 s in all, a tick every 0.2 s
    progress: .mcp,
    limits: JSONRPCCallLimits(total: .seconds(60), idle: .seconds(2))
)
for await update in ticking.progress { print(update.message ?? "") }   // tick 1 of 15 … tick 15 of 15
print(try await ticking.value.structuredContent ?? [:])                 // {"result":"ticked 15 times"}

let endless = mcp.rpc.call(
    MCPCallTool(name: "tick", arguments: ["n": 600, "interval": 0.1]),  // a minute of ticks
    progress: .mcp,
    limits: JSONRPCCallLimits(total: .seconds(1), idle: .seconds(1))
)
do {
    _ = try await endless.value
} catch {
    print(error.kind, error.message)   // timeout The JSON-RPC call tools/call (id …) got no answer within its timeout of 1.0 seconds, its total limit …
}
await mcp.rpc.waitForCancellationNotices()                  // the server has been told
_ = await server.shutdown()
            #expect(try await ticking.value.structuredContent == ["result": "ticked 15 times"])
            let failure = await #expect(throws: ParleyError.self) { try await endless.value }
            #expect(failure?.kind == .timeout)
            #expect(failure?.message.contains("got no answer within its timeout of 1.0 seconds, its total limit") == true, "\(String(describing: failure))")
        }
    }
}
