// swift-format-ignore-file
// Laid out line for line as the swift blocks of the article it compiles (scripts/check-docs).
import Foundation
import Parley
import ParleyJSONRPC
import ParleyJSONRPCStdio
import Testing

// The Swift blocks of Sources/ParleyJSONRPC/ParleyJSONRPC.docc/MCP.md, run against the MCP Python SDK's server that
// scripts/start-peers starts (SSE answers) and launches over stdio.
enum DocCMCP {
    static let environment = ProcessInfo.processInfo.environment
    static var isAvailable: Bool {
        environment["PARLEY_MCP_SSE_URL"] != nil && environment["PARLEY_MCP_PEER"] != nil && environment["PARLEY_PYTHON"] != nil
    }

    /// The article's declarations of the server it talks to: compiled, not run (the suite takes the peers that
    /// scripts/start-peers starts).
    static func declarationsOfTheArticle() {
let serverURL = URL(string: "http://127.0.0.1:8000/mcp")!   // the URL that mcp_peer.py printed
let python = URL(filePath: "/usr/bin/python3")
let script = "peers/mcp_peer.py"                             // in a checkout of Parley
        _ = (serverURL, python, script)
    }

    @Suite("DocC: Model Context Protocol", .enabled(if: isAvailable, "scripts/start-peers sets PARLEY_MCP_*"), .timeLimit(.minutes(1)))
    struct Examples {
        @Test("Streamable HTTP, progress, a timeout the server hears of, and stdio")
        func article() async throws {
            let serverURL = try #require(environment["PARLEY_MCP_SSE_URL"].flatMap(URL.init(string:)))
            let python = URL(fileURLWithPath: try #require(environment["PARLEY_PYTHON"]))
            let script = try #require(environment["PARLEY_MCP_PEER"])
            var roots = JSONRPCRouter()
            roots.register("roots/list") { () in ["roots": [["uri": "file:///srv/project", "name": "project"]]] as JSONValue }

            let channel = MCPStreamableHTTPChannel(client: Client(baseURL: serverURL), router: roots)
            let mcp = MCPClient(channel: channel, timeout: .seconds(30))
            let server = try await mcp.initialize(capabilities: ["roots": [:]])
            print(server.serverInfo.name, server.protocolVersion)              // parley-peer 2025-11-25
            print(channel.sessionID != nil)                                     // true
            for tool in try await mcp.listTools() { print(tool.name, tool.description ?? "") }
            let sum = try await mcp.callTool("add", arguments: ["a": 2, "b": 3])
            print(sum.structuredContent ?? [:], sum.isError)                    // {"result":5} false
            print(try await mcp.callTool("roots").structuredContent ?? [:])    // {"result":["file:///srv/project"]}
            await channel.close()
            #expect(server.protocolVersion == "2025-11-25")
            #expect(sum.structuredContent == ["result": 5])
            try await progressAndCancellation(serverURL: serverURL, roots: roots)

            let local = try JSONRPCStreamChannel.launch(
                executable: python, arguments: [script, "stdio"], standardError: .nullDevice, framing: .newlineDelimited, router: roots
            )
            let stdio = MCPClient(channel: local, timeout: .seconds(30))
            try await stdio.initialize()
            print(try await stdio.callTool("shout", arguments: ["text": "hello"]).text)   // HELLO
            _ = await local.shutdown()
        }

        func progressAndCancellation(serverURL: URL, roots: JSONRPCRouter) async throws {
            let channel = MCPStreamableHTTPChannel(client: Client(baseURL: serverURL), router: roots)
            defer { Task { await channel.close() } }
            let mcp = MCPClient(channel: channel, timeout: .seconds(30))
            try await mcp.initialize()
            let counting = mcp.callTool("count", arguments: ["n": 3], progress: .mcp)
            for await update in counting.progress {
                print(update.progress ?? 0, "of", update.total ?? 0, update.message ?? "")   // 1.0 of 3.0 step 1 of 3 …
            }
            print(try await counting.value.structuredContent ?? [:])                        // {"result":"counted to 3"}
            #expect(try await counting.value.structuredContent == ["result": "counted to 3"])

            do {
                _ = try await mcp.callTool("wait", arguments: ["seconds": 60], timeout: .milliseconds(200))
            } catch {
                print(error.kind)                                   // timeout
            }
            await mcp.rpc.waitForCancellationNotices()              // the server has been told
            var recorded: [JSONValue] = []
            for _ in 0..<500 where recorded.isEmpty {
                recorded = try await mcp.callTool("cancellations").structuredContent?["result"]?.arrayValue ?? []
            }
            #expect(!recorded.isEmpty, "the server recorded no cancelled wait")
        }
    }
}
