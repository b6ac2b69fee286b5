import Foundation
import Parley
import ParleyJSONRPC
import ParleyJSONRPCStdio
import Testing

@testable import ParleyTestSupport

/// The MCP servers that `scripts/start-peers` starts: `peers/mcp_peer.py` on the official MCP Python SDK (FastMCP,
/// pinned), over Streamable HTTP answering calls as `application/json` or as SSE streams, and launched over stdio.
enum MCPPeer {
    /// How a Streamable HTTP peer answers calls.
    enum Answer: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case json
        case sse

        var url: URL? {
            let name = self == .json ? "PARLEY_MCP_JSON_URL" : "PARLEY_MCP_SSE_URL"
            return ProcessInfo.processInfo.environment[name].flatMap(URL.init(string:))
        }

        var testDescription: String { self == .json ? "JSON answers" : "SSE answers" }
    }

    static let script = ProcessInfo.processInfo.environment["PARLEY_MCP_PEER"]
    static var isRunning: Bool { Answer.allCases.allSatisfy { $0.url != nil } && script != nil && StdioPeer.python != nil }

    /// The tools the peer offers.
    static let tools = ["add", "cancellations", "count", "fail", "roots", "shout", "tick", "wait"]

    /// Answers the server's `roots/list` with one root.
    static var router: JSONRPCRouter {
        var router = JSONRPCRouter()
        router.register("roots/list") { () in ["roots": [["uri": "file:///srv/parley", "name": "parley"]]] as JSONValue }
        return router
    }

    static func channel(_ answer: Answer, _ transport: TransportKind) throws -> MCPStreamableHTTPChannel {
        MCPStreamableHTTPChannel(
            client: Client(baseURL: try #require(answer.url), transport: transport.makeTransport()),
            router: router
        )
    }

    static func launch(log: String? = nil) throws -> JSONRPCStreamChannel {
        try JSONRPCStreamChannel.launch(
            executable: URL(fileURLWithPath: try #require(StdioPeer.python)),
            arguments: [try #require(script), "stdio"],
            environment: ProcessInfo.processInfo.environment.merging(["PARLEY_MCP_LOG": log ?? ""]) { $1 },
            standardError: FileHandle.nullDevice,
            framing: .newlineDelimited,
            router: router
        )
    }

    /// The request ids the peer's `wait` recorded as cancelled, asked for until `id` is among them (the server
    /// cancels the tool's task once it has read the notification, which the question may overtake).
    static func cancellations(_ mcp: MCPClient, including id: String) async throws -> [JSONValue] {
        for _ in 0..<500 {
            let recorded = try await mcp.callTool("cancellations").structuredContent?["result"]?.arrayValue ?? []
            if recorded.contains(.string(id)) { return recorded }
        }
        Issue.record("the MCP peer recorded no cancellation of \(id) after 500 questions")
        return []
    }
}

/// A raw message to the MCP endpoint, to see what the server answers without the channel in between.
private struct RawMCPMessage: Endpoint {
    typealias Response = Data
    var method: HTTPRequest.Method
    var headers: Headers
    var message: Data?
    var path: Path { "" }
    var body: RequestBody { message.map { .bytes($0, contentType: "application/json") } ?? .none }
    var acceptableStatusCodes: StatusCodes? { .any }
}

@Suite(
    "Independent peer: MCP Python SDK over Streamable HTTP and stdio",
    .enabled(if: MCPPeer.isRunning, "scripts/start-peers starts peers/mcp_peer.py and sets PARLEY_MCP_*"),
    .timeLimit(.minutes(2))
)
struct MCPPeerTests {
    @Test(
        "initialize negotiates 2025-11-25 and a session; tools/list, a structured result, a text result, isError",
        arguments: MCPPeer.Answer.allCases,
        TransportKind.allCases
    )
    func tools(answer: MCPPeer.Answer, transport: TransportKind) async throws {
        let channel = try MCPPeer.channel(answer, transport)
        let mcp = MCPClient(channel: channel, timeout: .seconds(30))
        let initialized = try await mcp.initialize()
        #expect(initialized.protocolVersion == "2025-11-25")
        #expect(initialized.serverInfo.name == "parley-peer")
        #expect(channel.protocolVersion == "2025-11-25")
        let session = try #require(channel.sessionID)
        #expect(session.count >= 16, "\(session)")
        #expect(try await mcp.listTools().map(\.name).sorted() == MCPPeer.tools)
        let sum = try await mcp.callTool("add", arguments: ["a": 2, "b": 3])
        #expect(sum.structuredContent == ["result": 5])
        #expect(sum.text == "5")
        #expect(!sum.isError)
        let shout = try await mcp.callTool("shout", arguments: ["text": "hello"])
        #expect(shout.structuredContent == nil)
        #expect(shout.text == "HELLO")
        let failed = try await mcp.callTool("fail")
        #expect(failed.isError)
        #expect(failed.text.contains("this tool always fails"), "\(failed.text)")
        // Bad arguments are a tool error too, in the SDK's words.
        let wrong = try await mcp.callTool("add", arguments: ["a": "two", "b": 3])
        #expect(wrong.isError, "\(wrong)")
        await channel.close()
    }

    @Test(
        "the server's roots/list request (on the GET stream) is answered by the channel's router",
        arguments: MCPPeer.Answer.allCases,
        TransportKind.allCases
    )
    func serverRequest(answer: MCPPeer.Answer, transport: TransportKind) async throws {
        let channel = try MCPPeer.channel(answer, transport)
        let mcp = MCPClient(channel: channel, timeout: .seconds(30))
        try await mcp.initialize(capabilities: ["roots": ["listChanged": false]])
        let roots = try await mcp.callTool("roots")
        #expect(roots.structuredContent == ["result": ["file:///srv/parley"]], "\(roots)")
        await channel.close()
    }

    @Test(
        "progress notifications on the call's SSE stream reach the call's progress, in order",
        arguments: TransportKind.allCases
    )
    func progress(transport: TransportKind) async throws {
        let channel = try MCPPeer.channel(.sse, transport)
        let mcp = MCPClient(channel: channel, timeout: .seconds(30))
        try await mcp.initialize()
        let call = mcp.callTool("count", arguments: ["n": 3], progress: .mcp)
        var updates: [JSONRPCProgressUpdate] = []
        for await update in call.progress { updates.append(update) }
        #expect(try await call.value.structuredContent == ["result": "counted to 3"])
        #expect(updates.map(\.progress) == [1, 2, 3])
        #expect(updates.map(\.total) == [3, 3, 3])
        #expect(updates.map(\.message) == ["step 1 of 3", "step 2 of 3", "step 3 of 3"])
        #expect(updates.last?.fractionCompleted == 1)
        #expect(updates.first?.params?["progressToken"] == call.token)
        await channel.close()
    }

    @Test(
        "a call past its timeout fails with timeout, and the server cancels the tool (notifications/cancelled)",
        arguments: MCPPeer.Answer.allCases,
        TransportKind.allCases
    )
    func timeout(answer: MCPPeer.Answer, transport: TransportKind) async throws {
        let channel = try MCPPeer.channel(answer, transport)
        let waitID = "parley-wait-\(answer.rawValue)-\(transport.rawValue)"
        let rpc = JSONRPCClient(
            channel: channel,
            ids: JSONRPCListedIDs([1, .string(waitID)], then: JSONRPCSequentialIDs(startingAt: 100)),
            cancellation: .mcp
        )
        let mcp = MCPClient(rpc: rpc)
        try await mcp.initialize()
        let failure = await expectParleyError(.timeout) {
            try await mcp.callTool("wait", arguments: ["seconds": 60], timeout: .milliseconds(500))
        }
        #expect(failure?.message.contains("tools/call") == true, "\(String(describing: failure))")
        await rpc.waitForCancellationNotices()
        let recorded = try await MCPPeer.cancellations(mcp, including: waitID)
        #expect(recorded.contains(.string(waitID)))
        await channel.close()
    }

    @Test("close() ends the session with DELETE: the server then answers 404 for it", arguments: TransportKind.allCases)
    func closeDeletes(transport: TransportKind) async throws {
        let url = try #require(MCPPeer.Answer.json.url)
        let channel = try MCPPeer.channel(.json, transport)
        try await MCPClient(channel: channel).initialize()
        let session = try #require(channel.sessionID)
        await channel.close()
        await expectParleyError(.transport) { try await MCPClient(channel: channel).listTools() }
        let client = Client(baseURL: url, transport: transport.makeTransport())
        let ping = Data(#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#.utf8)
        let headers: Headers = [
            "Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25", "Accept": "application/json, text/event-stream",
        ]
        let (_, head) = try await client.response(for: RawMCPMessage(method: .post, headers: headers, message: ping))
        #expect(head.status.code == 404)
    }

    @Test(
        "a session the server ended answers 404; the channel starts a new one and the call succeeds",
        arguments: MCPPeer.Answer.allCases,
        TransportKind.allCases
    )
    func newSessionAfter404(answer: MCPPeer.Answer, transport: TransportKind) async throws {
        let url = try #require(answer.url)
        let channel = try MCPPeer.channel(answer, transport)
        let mcp = MCPClient(channel: channel, timeout: .seconds(30))
        try await mcp.initialize()
        let first = try #require(channel.sessionID)
        // The session ends behind the channel's back.
        let client = Client(baseURL: url, transport: transport.makeTransport())
        let (_, head) = try await client.response(
            for: RawMCPMessage(method: .delete, headers: ["Mcp-Session-Id": first, "MCP-Protocol-Version": "2025-11-25"])
        )
        #expect(head.status.code == 200)
        let sum = try await mcp.callTool("add", arguments: ["a": 20, "b": 22])
        #expect(sum.structuredContent == ["result": 42])
        let second = try #require(channel.sessionID)
        #expect(second != first)
        await channel.close()
    }

    @Test("stdio (newline framing): tools, progress, the server's request, and a timeout the server hears of")
    func stdio() async throws {
        let log = try CommandScratchFolder()
        let logPath = log.path + "/cancelled.txt"
        let peer = try MCPPeer.launch(log: logPath)
        let rpc = JSONRPCClient(
            channel: peer,
            ids: JSONRPCListedIDs([1, 2, 3, 4, "parley-stdio-wait"], then: JSONRPCSequentialIDs(startingAt: 100)),
            timeout: .seconds(30),
            cancellation: .mcp
        )
        let mcp = MCPClient(rpc: rpc)
        #expect(try await mcp.initialize(capabilities: ["roots": [:]]).protocolVersion == "2025-11-25")
        #expect(try await mcp.listTools().map(\.name).sorted() == MCPPeer.tools)
        let call = mcp.callTool("count", arguments: ["n": 2], progress: .mcp)
        var messages: [String?] = []
        for await update in call.progress { messages.append(update.message) }
        #expect(messages == ["step 1 of 2", "step 2 of 2"])
        #expect(try await call.value.structuredContent == ["result": "counted to 2"])
        #expect(try await mcp.callTool("roots").structuredContent == ["result": ["file:///srv/parley"]])
        await expectParleyError(.timeout) {
            try await mcp.callTool("wait", arguments: ["seconds": 60], timeout: .milliseconds(300))
        }
        _ = try await MCPPeer.cancellations(mcp, including: "parley-stdio-wait")
        #expect(try String(contentsOfFile: logPath, encoding: .utf8) == "parley-stdio-wait\n")
        #expect(await peer.shutdown() == JSONRPCChildExit(code: 0))
    }
}
