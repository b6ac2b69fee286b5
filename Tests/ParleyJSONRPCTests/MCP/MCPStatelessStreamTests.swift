import Foundation
import Parley
import ParleyJSONRPC
import Testing

@testable import ParleyTestSupport

/// The stateless era (2026-07-28) over Streamable HTTP against ``ScriptedMCPServer``'s `statelessBreaking` script,
/// whose first stream of each method ends before its answer: there is no session to resume it in, so a call safe to
/// repeat goes again with a new id, any other fails clearly, and nothing asks to resume.
@Suite("MCP Streamable HTTP: a stateless stream that breaks", .timeLimit(.minutes(1)))
struct MCPStatelessStreamTests {
    func withServer(
        _ transport: TransportKind,
        configuration: MCPClient.Configuration = MCPClient.Configuration(),
        _ body: (MCPClient, ScriptedMCPServer) async throws -> Void
    ) async throws {
        let server = try await ScriptedMCPServer.start(.statelessBreaking)
        let client = Client(baseURL: try server.baseURL, transport: transport.makeTransport())
        let channel = MCPStreamableHTTPChannel(client: client, path: "/mcp")
        do {
            try await body(MCPClient(channel: channel, timeout: .seconds(30), configuration: configuration), server)
        } catch {
            await channel.close()
            try? await client.shutdown()
            await server.stop()
            throw error
        }
        await channel.close()
        try await client.shutdown()
        await server.stop()
    }

    @Test("A repeatable call (tools/list) is sent again with a new id; no GET resumes it", arguments: TransportKind.allCases)
    func repeatableResent(transport: TransportKind) async throws {
        try await withServer(transport) { mcp, server in
            let description = try await mcp.connect()
            #expect(description.era == .stateless)
            #expect(description.serverInfo?.name == "scripted-stateless")
            let tools = try await mcp.listTools()
            #expect(tools.map(\.name) == ["echo"])
            let lists = server.posts.filter { $0.rpcMethod == "tools/list" }
            #expect(lists.count == 2)
            #expect(Set(lists.compactMap(\.rpcID)).count == 2, "each attempt has its own id")
            #expect(lists.allSatisfy { $0.sessionID == nil && $0.protocolVersion == "2026-07-28" })
            #expect(server.received.allSatisfy { $0.method == "POST" }, "a stateless stream is never resumed with GET")
            #expect(server.posts.allSatisfy { $0.rpcMethod != "initialize" })
        }
    }

    @Test("A call that is not repeatable (tools/call) fails clearly, sent once", arguments: TransportKind.allCases)
    func notRepeatableFails(transport: TransportKind) async throws {
        try await withServer(transport) { mcp, server in
            let error = try await #require(throws: ParleyError.self) { try await mcp.callTool("echo") }
            #expect(error.kind == .transport)
            #expect(error.message.contains("cannot be resumed"))
            #expect(server.posts.filter { $0.rpcMethod == "tools/call" }.count == 1)
            #expect(server.received.allSatisfy { $0.method == "POST" })
        }
    }

    @Test("With the result cache on, server/discover's ttlMs keeps its result: one discover for two")
    func resultCache() async throws {
        var configuration = MCPClient.Configuration()
        configuration.resultCache = MCPResultCache.Limits(maxEntries: 4)
        try await withServer(.asyncHTTPClient, configuration: configuration) { mcp, server in
            _ = try await mcp.discover()
            let second = try await mcp.discover()
            #expect(second.ttlMs == 60_000)
            // The first discover() was kept for its ttlMs, the second read it.
            #expect(server.posts.filter { $0.rpcMethod == "server/discover" }.count == 1)
        }
        try await withServer(.asyncHTTPClient) { mcp, server in
            _ = try await mcp.discover()
            _ = try await mcp.discover()
            #expect(server.posts.filter { $0.rpcMethod == "server/discover" }.count == 2, "off by default")
        }
    }
}
