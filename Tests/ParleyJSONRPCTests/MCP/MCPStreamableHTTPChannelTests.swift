import Foundation
import HTTPTypes
import Parley
import Testing

@testable import ParleyJSONRPC
@testable import ParleyTestSupport

/// `MCPStreamableHTTPChannel` against ``ScriptedMCPServer``: the answers a real MCP server never gives (streams that
/// end early, expired sessions, hostile session ids, wrong content types, oversized answers, error statuses).
@Suite("MCP Streamable HTTP: scripted server", .timeLimit(.minutes(1)))
struct MCPStreamableHTTPChannelTests {
    /// The roots ``rootsRouter`` answers `roots/list` with.
    static let roots: JSONValue = [["uri": "file:///srv/scripted", "name": "scripted"]]

    /// A router answering the server's `roots/list` with ``roots``.
    static var rootsRouter: JSONRPCRouter {
        var router = JSONRPCRouter()
        router.register("roots/list") { () in ["roots": roots] as JSONValue }
        return router
    }

    /// The protocol version the scripted server negotiates (not the one the client asks for).
    static let negotiated = ScriptedMCPServer.protocolVersion

    /// Runs `body` with a fresh server following `script`, a channel posting to its `/mcp` through a client on
    /// `transport`, and an MCP client on that channel (each call bounded by 30 s, a guard against hanging); then
    /// closes the channel and stops both.
    func withScriptedServer(
        _ script: MCPScript,
        _ transport: TransportKind,
        maxMessageSize: Int = 8 << 20,
        router: JSONRPCRouter? = nil,
        _ body: (MCPStreamableHTTPChannel, MCPClient, ScriptedMCPServer) async throws -> Void
    ) async throws {
        let server = try await ScriptedMCPServer.start(script)
        let client = Client(baseURL: try server.baseURL, transport: transport.makeTransport())
        let channel = MCPStreamableHTTPChannel(client: client, path: "/mcp", router: router, maxMessageSize: maxMessageSize)
        do {
            try await body(channel, MCPClient(channel: channel, timeout: .seconds(30)), server)
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

    /// Sends `initialize` and `notifications/initialized` as ``MCPClient/initialize(clientInfo:protocolVersion:capabilities:)``
    /// does, without opening the `GET` stream (whose request would land among the records a test checks), and marks
    /// the client connected in the handshake era, as `initialize` does.
    @discardableResult
    func initialize(_ mcp: MCPClient) async throws -> MCPInitializeResult {
        let result = try await mcp.rpc.call(
            MCPInitialize(
                protocolVersion: MCPClient.latestProtocolVersion,
                clientInfo: MCPImplementation(name: "parley-tests", version: "1.0")
            )
        )
        try await mcp.rpc.notify(JSONRPCDynamicMethod("notifications/initialized"))
        // The client is connected in the handshake era now: its calls go as requests of this session.
        mcp.state.connected(MCPClient.description(of: result))
        return result
    }

    /// The first of the channel's ``MCPStreamableHTTPChannel/incoming`` notifications; `nil` if it ended (the suite's
    /// time limit ends a wait for one that never comes).
    func firstIncoming(_ channel: MCPStreamableHTTPChannel) async -> JSONRPCIncoming? {
        for await notification in channel.incoming { return notification }
        return nil
    }

    @Test(
        "initialize answered as JSON: later POSTs carry its session id and negotiated version, initialize neither",
        arguments: TransportKind.allCases
    )
    func sessionHeaders(transport: TransportKind) async throws {
        try await withScriptedServer(.json, transport) { channel, mcp, server in
            let initialized = try await initialize(mcp)
            #expect(initialized.protocolVersion == Self.negotiated)
            #expect(channel.sessionID == "session-1")
            #expect(channel.protocolVersion == Self.negotiated)
            #expect(try await mcp.listTools().map(\.name) == ["echo"])
            #expect(try await mcp.callTool("echo").structuredContent?["via"] == "json")

            let posts = server.posts
            #expect(posts.map(\.rpcMethod) == ["initialize", "notifications/initialized", "tools/list", "tools/call"])
            let first = try #require(posts.first)
            // The client asked for another version than the server chose: the header is the server's choice.
            #expect(first.json?["params"]?["protocolVersion"] == .string(MCPClient.latestProtocolVersion))
            #expect(MCPClient.latestProtocolVersion != Self.negotiated)
            #expect(first.sessionID == nil)
            #expect(first.protocolVersion == nil)
            for post in posts.dropFirst() {
                #expect(post.sessionID == "session-1", "\(post.rpcMethod ?? "answer")")
                #expect(post.protocolVersion == Self.negotiated, "\(post.rpcMethod ?? "answer")")
            }
            for post in posts {
                #expect(post.accepts("application/json"), "Accept: \(post.accept ?? "(none)")")
                #expect(post.accepts("text/event-stream"), "Accept: \(post.accept ?? "(none)")")
            }
            #expect(server.received.allSatisfy { $0.method == "POST" })
        }
    }

    @Test(
        "a call answered with an event stream: the server's roots/list on it is answered by the router, then the answer",
        arguments: TransportKind.allCases
    )
    func serverRequestOnTheCallStream(transport: TransportKind) async throws {
        try await withScriptedServer(.serverRequest, transport, router: Self.rootsRouter) { _, mcp, server in
            try await initialize(mcp)
            let result = try await mcp.callTool("index")
            #expect(result.structuredContent?["via"] == "sse")
            // The server put in its answer the roots it read from the client's POST.
            #expect(result.structuredContent?["roots"] == Self.roots)

            let posts = server.posts
            let call = try #require(posts.first { $0.rpcMethod == "tools/call" })
            // The server's request had the call's own id; the channel told the two apart by `method`.
            let id = try #require(call.rpcID)
            let answers = posts.filter { $0.rpcMethod == nil }
            #expect(answers.count == 1)
            let answer = try #require(answers.first)
            let expected: JSONValue = ["jsonrpc": "2.0", "id": id, "result": ["roots": Self.roots]]
            #expect(answer.json == expected)
            #expect(answer.sessionID == "session-1")
            #expect(answer.protocolVersion == Self.negotiated)
            #expect(answer.accepts("application/json") && answer.accepts("text/event-stream"))
        }
    }

    @Test(
        "a call with progress (rpc.call(_:progress: .mcp)) gets the notifications/progress of its event stream",
        arguments: TransportKind.allCases
    )
    func progressOnTheCallStream(transport: TransportKind) async throws {
        try await withScriptedServer(.serverRequest, transport, router: Self.rootsRouter) { _, mcp, server in
            try await initialize(mcp)
            let call = mcp.rpc.call(MCPCallTool(name: "index"), progress: .mcp)
            var updates: [JSONRPCProgressUpdate] = []
            for await update in call.progress { updates.append(update) }
            let result = try await call.value
            #expect(result.structuredContent?["via"] == "sse")
            #expect(updates.map(\.progress) == [1])
            #expect(updates.map(\.total) == [2])
            #expect(updates.map(\.message) == ["half way"])
            #expect(updates.first?.params?["progressToken"] == call.token)
            let posted = try #require(server.posts.first { $0.rpcMethod == "tools/call" })
            #expect(posted.json?["params"]?["_meta"]?["progressToken"] == call.token)
        }
    }

    @Test(
        "an event stream that ends after the event e1, before the answer: a GET with Last-Event-ID e1 brings the answer",
        arguments: TransportKind.allCases
    )
    func resumption(transport: TransportKind) async throws {
        try await withScriptedServer(.resumable, transport) { _, mcp, server in
            try await initialize(mcp)
            let result = try await mcp.callTool("slow")
            #expect(result.structuredContent?["via"] == "resumed")

            let gets = server.received.filter { $0.method == "GET" }
            #expect(gets.count == 1)
            let get = try #require(gets.first)
            #expect(get.lastEventID == "e1")
            #expect(get.sessionID == "session-1")
            #expect(get.protocolVersion == Self.negotiated)
            #expect(get.accepts("text/event-stream"), "Accept: \(get.accept ?? "(none)")")
            #expect(get.body.isEmpty)
        }
    }

    @Test(
        "an event stream that ends before the answer, with no event ids, fails the call with a transport error",
        arguments: TransportKind.allCases
    )
    func streamEndsWithoutEventIDs(transport: TransportKind) async throws {
        try await withScriptedServer(.endsWithoutEventIDs, transport) { _, mcp, server in
            try await initialize(mcp)
            let error = await expectParleyError(.transport) { try await mcp.callTool("slow") }
            let message = error?.message ?? ""
            #expect(message.contains("ended the event stream"), "\(message)")
            #expect(message.contains("before answering it"), "\(message)")
            #expect(message.contains("no ids"), "\(message)")
            #expect(!server.received.contains { $0.method == "GET" })
        }
    }

    @Test(
        "a 404 for the session: initialize and notifications/initialized again, then the call on the new session",
        arguments: TransportKind.allCases
    )
    func expiredSession(transport: TransportKind) async throws {
        try await withScriptedServer(.expiringSession, transport) { channel, mcp, server in
            try await initialize(mcp)
            let result = try await mcp.callTool("echo")
            #expect(result.structuredContent?["via"] == "json")
            #expect(channel.sessionID == "session-2")
            #expect(channel.protocolVersion == Self.negotiated)

            let posts = server.posts
            #expect(
                posts.map(\.rpcMethod) == [
                    "initialize", "notifications/initialized", "tools/call",
                    "initialize", "notifications/initialized", "tools/call",
                ]
            )
            // The initialize sent again carries no session (nor version); what follows carries the new session.
            #expect(posts.map(\.sessionID) == [nil, "session-1", "session-1", nil, "session-2", "session-2"])
            #expect(
                posts.map(\.protocolVersion) == [nil, Self.negotiated, Self.negotiated, nil, Self.negotiated, Self.negotiated]
            )
            try #require(posts.count == 6)
            #expect(posts[3].body == posts[0].body)
            #expect(posts[4].body == posts[1].body)
            #expect(posts[5].body == posts[2].body)

            // Later calls stay on the new session.
            _ = try await mcp.callTool("echo")
            #expect(server.posts.count == 7)
            #expect(server.posts.last?.sessionID == "session-2")
        }
    }

    @Test("calls that meet the same 404 at once share one new session", arguments: TransportKind.allCases)
    func expiredSessionConcurrently(transport: TransportKind) async throws {
        try await withScriptedServer(.expiringSession, transport) { channel, mcp, server in
            try await initialize(mcp)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        let result = try await mcp.callTool("echo")
                        #expect(result.structuredContent?["via"] == "json")
                    }
                }
                try await group.waitForAll()
            }
            #expect(channel.sessionID == "session-2")
            let initializes = server.posts.filter { $0.rpcMethod == "initialize" }
            #expect(initializes.count == 2, "one initialize, and one for the new session: \(server.posts.map(\.rpcMethod))")
        }
    }

    /// Session ids the specification forbids (visible ASCII only, at most 1024 bytes), each with `LEAKED` in it.
    enum HostileSessionID: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case controlByte
        case tooLong

        var value: String {
            switch self {
            case .controlByte: "LEAKED\tsession"
            case .tooLong: "LEAKED" + String(repeating: "s", count: 1025 - 6)
            }
        }

        var testDescription: String {
            switch self {
            case .controlByte: "a tab"
            case .tooLong: "1025 bytes"
            }
        }
    }

    @Test(
        "a session id with a control byte or over 1024 bytes fails initialize, and the error does not repeat it",
        arguments: HostileSessionID.allCases,
        TransportKind.allCases
    )
    func hostileSessionID(id: HostileSessionID, transport: TransportKind) async throws {
        try await withScriptedServer(.sessionID(id.value), transport) { channel, mcp, server in
            let error = await expectParleyError(.jsonRPCProtocol) { try await initialize(mcp) }
            // The id arrived as the server sent it: the channel, not the HTTP stack, refused it.
            let name = try #require(HTTPField.Name("Mcp-Session-Id"))
            #expect(error?.response?.headerFields[name] == id.value)
            let description = error.map { "\($0)" } ?? ""
            #expect(!description.contains("LEAKED"), "\(description)")
            #expect(description.contains("session id"), "\(description)")
            #expect(channel.sessionID == nil)
            #expect(server.posts.map(\.rpcMethod) == ["initialize"])
        }
    }

    @Test("a session id of exactly 1024 visible ASCII bytes (! to ~) is kept and sent back", arguments: TransportKind.allCases)
    func longestSessionID(transport: TransportKind) async throws {
        let id = "!" + String(repeating: "s", count: 1022) + "~"
        try await withScriptedServer(.sessionID(id), transport) { channel, mcp, server in
            try await initialize(mcp)
            #expect(channel.sessionID == id)
            #expect(server.posts.last?.sessionID == id)
        }
    }

    /// Protocol versions that cannot go in a header as they are (the channel keeps 1 to 64 visible ASCII bytes).
    enum UnusableProtocolVersion: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case lineBreak
        case space
        case tooLong

        var value: String {
            switch self {
            case .lineBreak: "2025-06-18\r\nX-Injected: yes"
            case .space: "2025-06-18 beta"
            case .tooLong: String(repeating: "9", count: 65)
            }
        }

        var testDescription: String {
            switch self {
            case .lineBreak: "a CR LF and another header"
            case .space: "a space"
            case .tooLong: "65 bytes"
            }
        }
    }

    @Test(
        "a protocolVersion that is not 1 to 64 visible ASCII bytes is not sent as MCP-Protocol-Version",
        arguments: UnusableProtocolVersion.allCases,
        TransportKind.allCases
    )
    func unusableProtocolVersion(version: UnusableProtocolVersion, transport: TransportKind) async throws {
        try await withScriptedServer(.protocolVersion(version.value), transport) { channel, mcp, server in
            let initialized = try await initialize(mcp)
            #expect(initialized.protocolVersion == version.value)
            #expect(channel.protocolVersion == nil)
            _ = try await mcp.callTool("echo")
            let later = server.posts.dropFirst()
            #expect(later.map(\.rpcMethod) == ["notifications/initialized", "tools/call"])
            #expect(later.allSatisfy { $0.protocolVersion == nil && $0.sessionID == "session-1" })
        }
    }

    @Test("a call answered as text/plain fails with jsonRPCProtocol naming the content type", arguments: TransportKind.allCases)
    func plainTextAnswer(transport: TransportKind) async throws {
        try await withScriptedServer(.plainText, transport) { _, mcp, _ in
            try await initialize(mcp)
            let error = await expectParleyError(.jsonRPCProtocol) { try await mcp.callTool("echo") }
            #expect(error?.message.contains("text/plain") == true, "\(error?.message ?? "")")
        }
    }

    /// How the oversized answer comes.
    enum AnswerShape: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case jsonBody
        case event

        var testDescription: String { self == .jsonBody ? "as a JSON body" : "as one event" }
    }

    @Test(
        "an answer larger than maxMessageSize (1024) fails with bodyTooLarge",
        arguments: AnswerShape.allCases,
        TransportKind.allCases
    )
    func oversizedAnswer(shape: AnswerShape, transport: TransportKind) async throws {
        let script = MCPScript.oversized(bytes: 4096, asEvent: shape == .event)
        try await withScriptedServer(script, transport, maxMessageSize: 1024) { _, mcp, _ in
            // The answer to initialize is well under the limit.
            try await initialize(mcp)
            await expectParleyError(.bodyTooLarge) { try await mcp.callTool("echo") }
        }
    }

    @Test(
        "HTTP 500 with a plain text body fails with unacceptableStatus; 400 with an error object fails with its code",
        arguments: TransportKind.allCases
    )
    func errorStatuses(transport: TransportKind) async throws {
        try await withScriptedServer(.serverError, transport) { _, mcp, _ in
            try await initialize(mcp)
            let error = await expectParleyError(.unacceptableStatus) { try await mcp.callTool("echo") }
            #expect(error?.status?.code == 500)
            #expect(error?.bodyExcerpt?.contains("the tool crashed") == true)
        }
        try await withScriptedServer(.rejected(code: -32602), transport) { _, mcp, _ in
            try await initialize(mcp)
            let error = await expectParleyError(.jsonRPCError) { try await mcp.callTool("missing") }
            #expect(error?.jsonRPCError?.code == -32602)
            #expect(error?.jsonRPCError?.message == "Invalid params: no tool named missing")
        }
    }

    @Test(
        "close() sends DELETE with the session id; later messages fail with transport, unsent",
        arguments: TransportKind.allCases
    )
    func close(transport: TransportKind) async throws {
        try await withScriptedServer(.json, transport) { channel, mcp, server in
            try await initialize(mcp)
            await channel.close()
            let delete = try #require(server.received.last)
            #expect(delete.method == "DELETE")
            #expect(delete.sessionID == "session-1")
            #expect(delete.protocolVersion == Self.negotiated)
            let count = server.received.count
            await expectParleyError(.transport) { try await mcp.callTool("echo") }
            await expectParleyError(.transport) {
                try await mcp.rpc.notify(JSONRPCDynamicMethod("notifications/roots/list_changed"))
            }
            #expect(server.received.count == count)
        }
    }

    @Test("a notification answered 202 Accepted with no body succeeds", arguments: TransportKind.allCases)
    func notificationAccepted(transport: TransportKind) async throws {
        try await withScriptedServer(.json, transport) { _, mcp, server in
            try await initialize(mcp)
            try await mcp.rpc.notify(JSONRPCDynamicMethod("notifications/roots/list_changed"))
            let posted = try #require(server.posts.last)
            #expect(posted.rpcMethod == "notifications/roots/list_changed")
            #expect(posted.rpcID == nil)
            #expect(posted.sessionID == "session-1")
            #expect(posted.protocolVersion == Self.negotiated)
        }
    }

    @Test(
        "MCPClient.initialize opens the GET stream with the session; its notification arrives on incoming",
        arguments: TransportKind.allCases
    )
    func listening(transport: TransportKind) async throws {
        try await withScriptedServer(.listening, transport) { channel, mcp, server in
            try await mcp.initialize()
            let notification = await firstIncoming(channel)
            #expect(notification?.method == "notifications/tools/list_changed")
            let get = try #require(server.received.first { $0.method == "GET" })
            #expect(get.sessionID == "session-1")
            #expect(get.protocolVersion == Self.negotiated)
            #expect(get.lastEventID == nil)
            #expect(get.accepts("text/event-stream"), "Accept: \(get.accept ?? "(none)")")
        }
    }
}
