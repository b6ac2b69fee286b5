import Foundation
import Parley
import ParleyAsyncHTTPClient
import ParleyJSONRPC
import ParleyJSONRPCStdio
import Testing

@testable import ParleyTestSupport

/// How the suite reaches the MCP peer (`peers/mcp_peer.py`): launched over stdio, or over Streamable HTTP (SSE
/// answers, which carry a call's progress) on each transport.
enum MCPPeerRoute: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case stdio
    case httpAsyncHTTPClient
    case httpURLSession

    var testDescription: String { rawValue }

    /// Runs `body` with an initialized MCP client on this route whose first call after `initialize` has the id
    /// `callID` and which sends `notifications/cancelled`; closes it (the child process, or the session) however `body`
    /// ends. Over HTTP each client has a connection pool of its own: a session holds a connection for its GET stream
    /// and one for each call under way, which the shared pool of the other suites' sessions should not have to share.
    func session(callID: String, _ body: (MCPClient) async throws -> Void) async throws {
        let channel: any JSONRPCChannel
        let close: () async -> Void
        switch self {
        case .stdio:
            let peer = try MCPPeer.launch()
            (channel, close) = (peer, { _ = await peer.shutdown() })
        case .httpAsyncHTTPClient:
            let url = try #require(MCPPeer.Answer.sse.url)
            let transport = AsyncHTTPClientTransport()
            let http = MCPStreamableHTTPChannel(client: Client(baseURL: url, transport: transport), router: MCPPeer.router)
            channel = http
            close = {
                await http.close()
                try? await transport.shutdown()
            }
        case .httpURLSession:
            let http = try MCPPeer.channel(.sse, .urlSession)
            (channel, close) = (http, { await http.close() })
        }
        let rpc = JSONRPCClient(
            channel: channel,
            ids: JSONRPCListedIDs([1, .string(callID)], then: JSONRPCSequentialIDs(startingAt: 100)),
            cancellation: .mcp
        )
        let mcp = MCPClient(rpc: rpc)
        do {
            try await mcp.initialize()
            try await body(mcp)
        } catch {
            await close()
            throw error
        }
        await close()
    }
}

/// `received("cancel")` on the stdio peer: the cancellation notifications it recorded.
private struct RecordedCancellations: JSONRPCMethod {
    typealias Result = [JSONValue]
    static let name = "received"
    var params: [String] { ["cancel"] }
}

/// `work` on the stdio peer: LSP work done progress, a step every `interval` seconds.
private struct Work: JSONRPCMethod {
    struct Params: Encodable, Sendable {
        let steps: Int
        let interval: Double
    }
    typealias Result = String
    static let name = "work"
    let params: Params
}

@Suite(
    "Independent peers: a call's idle limit restarts at each progress notification, its total does not (MCP, LSP)",
    .enabled(
        if: MCPPeer.isRunning && StdioPeer.script != nil,
        "scripts/start-peers starts peers/mcp_peer.py and names peers/stdio_peer.py (PARLEY_MCP_*, PARLEY_STDIO_PEER)"
    ),
    // One peer at a time: each starts a Python process (the MCP SDK's takes a second of CPU), and the limits under
    // test are about time, so this suite does not add a burst of its own to a loaded machine.
    .serialized,
    .timeLimit(.minutes(2))
)
struct JSONRPCCallLimitsPeerTests {
    /// The MCP `tick` tool with a progress token.
    private static func tick(_ n: Int, every interval: Double) -> MCPCallTool {
        MCPCallTool(name: "tick", arguments: ["n": .int(n), "interval": .double(interval)])
    }

    @Test(
        "MCP: ticks every 0.2 s for 3 s complete within an idle limit of 2 s, each tick restarting it",
        arguments: MCPPeerRoute.allCases
    )
    func mcpProgressRestartsIdle(route: MCPPeerRoute) async throws {
        try await route.session(callID: "limits-idle-ok-\(route.rawValue)-\(UUID())") { mcp throws in
            let call = mcp.rpc.call(
                Self.tick(15, every: 0.2),
                progress: .mcp,
                limits: JSONRPCCallLimits(total: .seconds(60), idle: .seconds(2))
            )
            var updates: [JSONRPCProgressUpdate] = []
            for await update in call.progress { updates.append(update) }
            #expect(try await call.value.structuredContent == ["result": "ticked 15 times"])
            #expect(updates.map(\.progress) == (1...15).map(Double.init))
        }
    }

    @Test(
        "MCP: ticks every 5 s miss an idle limit of 0.5 s: timeout naming the idle limit, and the server cancels the tool",
        arguments: MCPPeerRoute.allCases
    )
    func mcpIdleFires(route: MCPPeerRoute) async throws {
        // Unique per run: the HTTP peer keeps the cancellations of earlier runs.
        let id = "limits-idle-\(route.rawValue)-\(UUID())"
        try await route.session(callID: id) { mcp throws in
            let call = mcp.rpc.call(
                Self.tick(2, every: 5),
                progress: .mcp,
                limits: JSONRPCCallLimits(total: .seconds(60), idle: .milliseconds(500))
            )
            let failure = await expectParleyError(.timeout) { try await call.value }
            #expect(failure?.message.contains("no progress notification and no answer within its idle limit") == true)
            #expect(failure?.message.contains(id) == true, "\(String(describing: failure))")
            await mcp.rpc.waitForCancellationNotices()
            _ = try await MCPPeer.cancellations(mcp, including: id)
        }
    }

    @Test(
        "MCP: ticks every 0.1 s for 10 s still fail at a total of 2 s (progress does not extend it); the server cancels",
        arguments: MCPPeerRoute.allCases
    )
    func mcpTotalCaps(route: MCPPeerRoute) async throws {
        let id = "limits-total-\(route.rawValue)-\(UUID())"
        try await route.session(callID: id) { mcp throws in
            let call = mcp.rpc.call(
                Self.tick(100, every: 0.1),
                progress: .mcp,
                limits: JSONRPCCallLimits(total: .seconds(2), idle: .seconds(1))
            )
            var updates = 0
            for await _ in call.progress { updates += 1 }
            let failure = await expectParleyError(.timeout) { try await call.value }
            #expect(
                failure?.message.contains("within its timeout of 2.0 seconds, its total limit") == true,
                "\(String(describing: failure))"
            )
            #expect(failure?.message.contains("progress notifications do not extend it") == true)
            #expect(updates > 0, "progress kept coming until the total")
            await mcp.rpc.waitForCancellationNotices()
            _ = try await MCPPeer.cancellations(mcp, including: id)
        }
    }

    /// The cancellations the stdio peer recorded, asked for until one is there (the client sends it without waiting).
    private static func recorded(_ rpc: JSONRPCClient) async throws -> [JSONValue] {
        await rpc.waitForCancellationNotices()
        for _ in 0..<500 {
            let recorded = try await rpc.call(RecordedCancellations())
            if !recorded.isEmpty { return recorded }
        }
        Issue.record("the peer recorded no cancellation after 500 questions")
        return []
    }

    /// A language-server-style client of the stdio peer (Content-Length framing, `$/cancelRequest`), once the peer
    /// answers (its start, which may be slow on a loaded machine, is not the limited call's to wait for); the next
    /// call has the id 41.
    private static func lspPeer() async throws -> (JSONRPCStreamChannel, JSONRPCClient) {
        let peer = try StdioPeer.launch(.contentLength)
        let rpc = JSONRPCClient(
            channel: peer,
            ids: JSONRPCListedIDs([1, 41], then: JSONRPCSequentialIDs(startingAt: 100)),
            cancellation: .lsp
        )
        #expect(try await rpc.call(Sum(params: [1, 2])) == 3)
        return (peer, rpc)
    }

    @Test("LSP ($/progress): steps every 0.2 s for 3 s complete within an idle limit of 2 s")
    func lspProgressRestartsIdle() async throws {
        let (peer, rpc) = try await Self.lspPeer()
        let call = rpc.call(
            Work(params: .init(steps: 15, interval: 0.2)),
            progress: .lsp,
            limits: JSONRPCCallLimits(total: .seconds(60), idle: .seconds(2))
        )
        var updates = 0
        for await _ in call.progress { updates += 1 }
        #expect(try await call.value == "worked 15 steps")
        #expect(updates == 17, "begin, 15 reports, end")
        #expect(await peer.shutdown() == JSONRPCChildExit(code: 0))
    }

    @Test("LSP ($/progress): steps every 5 s miss an idle limit of 0.5 s; the peer receives $/cancelRequest")
    func lspIdleFires() async throws {
        let (peer, rpc) = try await Self.lspPeer()
        let call = rpc.call(
            Work(params: .init(steps: 2, interval: 5)),
            progress: .lsp,
            limits: JSONRPCCallLimits(total: .seconds(60), idle: .milliseconds(500))
        )
        let failure = await expectParleyError(.timeout) { try await call.value }
        #expect(failure?.message.contains("no progress notification and no answer within its idle limit of 0.5 seconds") == true)
        #expect(try await Self.recorded(rpc) == [["$/cancelRequest", ["cancel", "$/cancelRequest", ["id": 41]]]])
        #expect(await peer.shutdown() == JSONRPCChildExit(code: 0))
    }

    @Test("LSP ($/progress): steps every 0.1 s for 10 s still fail at a total of 2 s; the peer receives $/cancelRequest")
    func lspTotalCaps() async throws {
        let (peer, rpc) = try await Self.lspPeer()
        let call = rpc.call(
            Work(params: .init(steps: 100, interval: 0.1)),
            progress: .lsp,
            limits: JSONRPCCallLimits(total: .seconds(2), idle: .seconds(1))
        )
        var updates = 0
        for await _ in call.progress { updates += 1 }
        let failure = await expectParleyError(.timeout) { try await call.value }
        #expect(
            failure?.message.contains("within its timeout of 2.0 seconds, its total limit") == true,
            "\(String(describing: failure))"
        )
        #expect(updates > 1, "progress kept coming after the first report")
        #expect(try await Self.recorded(rpc) == [["$/cancelRequest", ["cancel", "$/cancelRequest", ["id": 41]]]])
        #expect(await peer.shutdown() == JSONRPCChildExit(code: 0))
    }

    @Test(
        "a call without progress: its idle limit counts from the send, fires before a larger total, and the peer is told"
    )
    func plainCallIdle() async throws {
        let (peer, rpc) = try await Self.lspPeer()
        let failure = await expectParleyError(.timeout) {
            try await rpc.call(PeerHang(), limits: JSONRPCCallLimits(total: .seconds(60), idle: .milliseconds(300)))
        }
        #expect(failure?.message.contains("no answer within its idle limit of 0.3 seconds") == true)
        #expect(failure?.message.contains("counted from the send") == true, "\(String(describing: failure))")
        #expect(try await Self.recorded(rpc) == [["$/cancelRequest", ["cancel", "$/cancelRequest", ["id": 41]]]])
        // Within its limits, a call is answered.
        #expect(try await rpc.call(Sum(params: [1, 2]), limits: JSONRPCCallLimits(total: .seconds(30), idle: .seconds(10))) == 3)
        #expect(await peer.shutdown() == JSONRPCChildExit(code: 0))
    }
}
