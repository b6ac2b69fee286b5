import Foundation
import HTTPTypes
import OpenAPIRuntime
import Parley
import ParleyAsyncHTTPClient
import ParleyJSONRPC
import ParleyJSONRPCStdio
import Testing

@testable import ParleyTestSupport

/// The MCP servers of the official Python SDK 2.3 that `scripts/start-peers` starts (`peers/mcp2_peer.py`): one server
/// speaking both eras (2026-07-28 and the handshake era) answering calls as JSON or as SSE streams, and one that
/// speaks the stateless era alone (it refuses handshake-era requests with 400 and `-32022`). Every HTTP peer records
/// the requests it receives (`GET <base>/requests`); the suite launches the same server over stdio too.
enum MCP2Peer {
    static let environment = ProcessInfo.processInfo.environment
    static let jsonURL = environment["PARLEY_MCP2_JSON_URL"].flatMap(URL.init(string:))
    static let sseURL = environment["PARLEY_MCP2_SSE_URL"].flatMap(URL.init(string:))
    static let modernURL = environment["PARLEY_MCP2_MODERN_URL"].flatMap(URL.init(string:))
    static let python = environment["PARLEY_MCP2_PYTHON"]
    static let script = environment["PARLEY_MCP2_PEER"]

    /// Whether every 2.x peer and the 1.30 one are there.
    static var isRunning: Bool {
        jsonURL != nil && sseURL != nil && modernURL != nil && python != nil && script != nil && MCPPeer.isRunning
    }

    static let serverName = "parley-peer2"
    static let nameQuestion = "What is your name?"
    static let consentURL = "https://example.com/consent"
}

/// Which server a test talks to.
enum MCPErasServer: String, Sendable {
    /// The SDK 2.3 server speaking both eras.
    case dual
    /// The SDK 2.3 server behind the wrapper that refuses the handshake era.
    case modern
    /// The SDK 1.30 server, handshake era only (`peers/mcp_peer.py`).
    case legacy
}

/// How a test reaches the server.
enum MCPErasTransport: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case httpJSON
    case httpSSE
    case stdio

    static let http: [MCPErasTransport] = [.httpJSON, .httpSSE]
    /// The transports on which a stateless-era call's own stream carries notifications (progress, log messages).
    static let streaming: [MCPErasTransport] = [.httpSSE, .stdio]

    var testDescription: String {
        switch self {
        case .httpJSON: "HTTP, JSON answers"
        case .httpSSE: "HTTP, SSE answers"
        case .stdio: "stdio"
        }
    }
}

/// The era a test asks for: detected (the stateless era with the 2.x server) or pinned to the handshake era.
enum MCPErasChoice: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case detected
    case handshake

    var era: MCPEra? { self == .handshake ? .handshake : nil }
    var expectsStateless: Bool { self == .detected }
    var testDescription: String { self == .detected ? "detected (2026-07-28)" : "pinned handshake (2025-11-25)" }
}

/// One request as a 2.x HTTP peer recorded it.
struct MCP2RecordedRequest: Decodable, Sendable, CustomStringConvertible {
    let method: String
    let path: String
    let rpcMethod: String?
    /// Lower-cased names; repeated fields joined with `, `.
    let headers: [String: String]

    func header(_ name: String) -> String? { headers[name.lowercased()] }

    var description: String { "\(method) \(rpcMethod ?? "-") \(headers.filter { $0.key.hasPrefix("mcp") })" }
}

/// `GET /requests` on a 2.x HTTP peer.
private struct RecordedRequests: Endpoint {
    typealias Response = [MCP2RecordedRequest]
    var path: Path { "/requests" }
}

/// Keeps the body of every request a client sends (what went on the wire), by JSON-RPC method.
final class MCPErasBodyRecorder: ClientMiddleware, Sendable {
    private let bodies = LockedState<[JSONValue]>([])

    /// The JSON-RPC messages sent, in order.
    var messages: [JSONValue] { bodies.withLock { $0 } }

    /// The params of each message of `method`, in order.
    func params(of method: String) -> [JSONValue] {
        messages.filter { $0["method"]?.stringValue == method }.map { $0["params"] ?? .null }
    }

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        guard let body else { return try await next(request, nil, baseURL) }
        let data = try await Data(collecting: body, upTo: 1 << 20)
        if let message = try? JSONDecoder().decode(JSONValue.self, from: data) {
            bodies.withLock { $0.append(message) }
        }
        return try await next(request, HTTPBody(data), baseURL)
    }
}

/// At most a few stdio peers at once: each launch imports the MCP SDK (seconds of CPU), and these suites launch over a
/// dozen, in parallel with the rest of the test run, on as few as two cores.
actor MCPErasStdioSlots {
    static let shared = MCPErasStdioSlots(slots: 3)

    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(slots: Int) {
        free = slots
    }

    func acquire() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty {
            free += 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}

/// A client on a fresh channel to one peer, and what the peer recorded of this channel's requests.
///
/// Every HTTP request carries `X-Parley-Test: <tag>`, unique to this connection, so that the peer's record (shared by
/// the tests running in parallel) can be filtered to it without clearing it.
struct MCPErasPeer: Sendable {
    let mcp: MCPClient
    let tag: String
    let http: MCPStreamableHTTPChannel?
    let stdio: JSONRPCStreamChannel?
    let bodies: MCPErasBodyRecorder
    private let recordsBase: URL?
    /// This connection's own HTTP client: the tests run in parallel, and their long-lived streams (the handshake era's
    /// GET stream, subscriptions) would exhaust one shared pool's connections to a peer.
    private let transport: AsyncHTTPClientTransport?

    /// Runs `body` with a connection to `server` over `transport` (stdio launches the server) with `configuration`,
    /// and closes it after, whether `body` succeeded or not.
    static func with<T>(
        _ server: MCPErasServer,
        _ transport: MCPErasTransport,
        configuration: MCPClient.Configuration = MCPClient.Configuration(),
        _ body: (MCPErasPeer) async throws -> T
    ) async throws -> T {
        if transport == .stdio { await MCPErasStdioSlots.shared.acquire() }
        let peer: MCPErasPeer
        do {
            peer = try open(server, transport, configuration: configuration)
        } catch {
            if transport == .stdio { await MCPErasStdioSlots.shared.release() }
            throw error
        }
        do {
            let value = try await body(peer)
            await peer.close()
            return value
        } catch {
            await peer.close()
            throw error
        }
    }

    /// ``with(_:_:configuration:_:)`` with `era` (`nil`: detected), `handlers` and `logLevel`.
    static func with<T>(
        _ server: MCPErasServer,
        _ transport: MCPErasTransport,
        era: MCPEra?,
        handlers: MCPClientHandlers = MCPClientHandlers(),
        logLevel: String? = nil,
        _ body: (MCPErasPeer) async throws -> T
    ) async throws -> T {
        var configuration = MCPClient.Configuration()
        configuration.era = era
        configuration.handlers = handlers
        configuration.logLevel = logLevel
        return try await with(server, transport, configuration: configuration, body)
    }

    /// A connection to `server` over `transport`; ``close()`` ends it.
    private static func open(
        _ server: MCPErasServer,
        _ transport: MCPErasTransport,
        configuration: MCPClient.Configuration
    ) throws -> MCPErasPeer {
        let tag = "mcp-eras-\(UUID().uuidString.lowercased())"
        let bodies = MCPErasBodyRecorder()
        // Generous: a peer launched while the machine is busy takes seconds to start.
        let timeout: Duration = .seconds(90)
        switch transport {
        case .stdio:
            let (python, script): (String?, String?) =
                server == .legacy ? (StdioPeer.python, MCPPeer.script) : (MCP2Peer.python, MCP2Peer.script)
            // Not FileHandle.nullDevice: on Linux its descriptor is -1, and the child would write to ours.
            let silence = try #require(FileHandle(forWritingAtPath: "/dev/null"))
            let channel = try JSONRPCStreamChannel.launch(
                executable: URL(fileURLWithPath: try #require(python)),
                arguments: [try #require(script), "stdio"],
                environment: ProcessInfo.processInfo.environment.merging(["PARLEY_MCP_LOG": ""]) { $1 },
                standardError: silence,
                framing: .newlineDelimited
            )
            let mcp = MCPClient(channel: channel, timeout: timeout, configuration: configuration)
            return MCPErasPeer(
                mcp: mcp,
                tag: tag,
                http: nil,
                stdio: channel,
                bodies: bodies,
                recordsBase: nil,
                transport: nil
            )
        case .httpJSON, .httpSSE:
            let url: URL? =
                switch (server, transport) {
                case (.dual, .httpJSON): MCP2Peer.jsonURL
                case (.dual, _): MCP2Peer.sseURL
                case (.modern, _): MCP2Peer.modernURL
                case (.legacy, .httpJSON): MCPPeer.Answer.json.url
                case (.legacy, _): MCPPeer.Answer.sse.url
                }
            let endpoint = try #require(url)
            let transport = AsyncHTTPClientTransport()
            let client = Client(baseURL: endpoint, transport: transport, middlewares: [bodies])
            let channel = MCPStreamableHTTPChannel(client: client, headers: ["X-Parley-Test": tag])
            let mcp = MCPClient(channel: channel, timeout: timeout, configuration: configuration)
            // The 1.30 peer records nothing; the 2.x peers answer /requests at the root of their URL.
            let base = server == .legacy ? nil : endpoint.deletingLastPathComponent()
            return MCPErasPeer(
                mcp: mcp,
                tag: tag,
                http: channel,
                stdio: nil,
                bodies: bodies,
                recordsBase: base,
                transport: transport
            )
        }
    }

    /// The requests the peer recorded of this connection, oldest first.
    func requests() async throws -> [MCP2RecordedRequest] {
        let base = try #require(recordsBase, "only the 2.x HTTP peers record requests")
        let client = Client(baseURL: base, transport: try #require(transport))
        return try await client.send(RecordedRequests()).filter { $0.header("x-parley-test") == tag }
    }

    /// The POSTs of this connection that carried a JSON-RPC request or notification, oldest first.
    func posts() async throws -> [MCP2RecordedRequest] {
        try await requests().filter { $0.method == "POST" && $0.rpcMethod != nil }
    }

    /// Closes the channel (HTTP: `DELETE` of a session, then the client; stdio: the child's input, then waits for
    /// its exit and frees its slot).
    private func close() async {
        await http?.close()
        try? await transport?.shutdown()
        if let stdio {
            _ = await stdio.shutdown(gracePeriod: .seconds(5))
            await MCPErasStdioSlots.shared.release()
        }
    }
}

/// A wait that did not end within its bound.
struct MCPErasTimedOut: Error, CustomStringConvertible {
    let description: String
}

/// The value `body` returns, or a failure when it takes longer than `limit` (a bound on a wait, never a way to let
/// something happen: `body` waits on the event itself).
func mcpErasWithin<T: Sendable>(
    _ limit: Duration,
    _ what: String,
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            throw MCPErasTimedOut(description: "\(what) did not happen within \(limit)")
        }
        return value
    }
}

/// The first update of `subscription` that `predicate` accepts, within `limit`.
func mcpErasFirst(
    of subscription: MCPSubscription,
    within limit: Duration = .seconds(45),
    _ what: String,
    where predicate: @escaping @Sendable (MCPUpdate) -> Bool
) async throws -> MCPUpdate {
    try await mcpErasWithin(limit, what) {
        for try await update in subscription where predicate(update) { return update }
        throw ParleyError(.transport, "the subscription ended before \(what)")
    }
}

/// Records what the handlers were asked, for the test to check after the call.
final class MCPErasAsked<Value: Sendable>: Sendable {
    private let values = LockedState<[Value]>([])
    var all: [Value] { values.withLock { $0 } }
    func record(_ value: Value) { values.withLock { $0.append(value) } }
}

@Suite(
    "MCP eras against independent peers: the era detected, pinned, refused (MCP Python SDK 2.3 and 1.30)",
    .enabled(if: MCP2Peer.isRunning, "scripts/start-peers starts peers/mcp2_peer.py and peers/mcp_peer.py"),
    .timeLimit(.minutes(2))
)
struct MCPErasPeerTests {
    @Test(
        "a 2026-07-28 server: server/discover, no initialize, MCP-Protocol-Version, Mcp-Method and Mcp-Name on every POST",
        arguments: [(MCPErasServer.dual, MCPErasTransport.httpJSON), (.dual, .httpSSE), (.modern, .httpSSE)]
    )
    func detectsStateless(server kind: MCPErasServer, transport: MCPErasTransport) async throws {
        try await MCPErasPeer.with(kind, transport) { peer in
            let server = try await peer.mcp.connect()
            #expect(server.era == .stateless)
            #expect(server.era.isStateless)
            #expect(server.era.protocolVersion == "2026-07-28")
            #expect(server.serverInfo?.name == MCP2Peer.serverName)
            #expect(server.supportedVersions.contains("2026-07-28"))
            #expect(server.capabilities["tools"] != nil)
            #expect(peer.http?.sessionID == nil)
            let tools = try await peer.mcp.listTools().map(\.name)
            #expect(tools.contains("tenant_echo") && tools.contains("ask_name"), "\(tools)")
            #expect(try await peer.mcp.callTool("add", arguments: ["a": 2, "b": 3]).structuredContent == ["result": 5])
            let prompt = try await peer.mcp.getPrompt("greet", arguments: ["name": "Ada"])
            #expect(prompt.messages.first?.text == "Please greet Ada.")
            #expect(try await peer.mcp.readResource("text://greeting").first?.text == "hello from parley-peer2")

            let recorded = try await peer.requests()
            #expect(recorded.allSatisfy { $0.method == "POST" }, "no GET stream, no DELETE in the stateless era: \(recorded)")
            #expect(!recorded.contains { $0.rpcMethod == "initialize" || $0.rpcMethod == "notifications/initialized" })
            let posts = try await peer.posts()
            #expect(posts.map(\.rpcMethod) == ["server/discover", "tools/list", "tools/call", "prompts/get", "resources/read"])
            for post in posts {
                #expect(post.header("MCP-Protocol-Version") == "2026-07-28", "\(post)")
                #expect(post.header("Mcp-Method") == post.rpcMethod, "\(post)")
                #expect(post.header("Mcp-Session-Id") == nil, "\(post)")
            }
            #expect(posts.first { $0.rpcMethod == "tools/call" }?.header("Mcp-Name") == "add")
            #expect(posts.first { $0.rpcMethod == "prompts/get" }?.header("Mcp-Name") == "greet")
            #expect(posts.first { $0.rpcMethod == "resources/read" }?.header("Mcp-Name") == "text://greeting")
            #expect(posts.first { $0.rpcMethod == "tools/list" }?.header("Mcp-Name") == nil)
            // The envelope of every request: the version, the client's name, its capabilities.
            let sent = peer.bodies.messages.filter { $0["id"] != nil && $0["method"] != nil }
            #expect(sent.count == 5)
            for message in sent {
                let meta = message["params"]?["_meta"]
                #expect(meta?["io.modelcontextprotocol/protocolVersion"] == "2026-07-28", "\(message)")
                #expect(meta?["io.modelcontextprotocol/clientInfo"]?["name"] == "parley", "\(message)")
                #expect(meta?["io.modelcontextprotocol/clientCapabilities"] != nil, "\(message)")
            }
        }
    }

    @Test(
        "the 1.30 server speaks only the handshake era: the client falls back to initialize at 2025-11-25",
        arguments: MCPErasTransport.allCases
    )
    func fallsBackToHandshake(transport: MCPErasTransport) async throws {
        try await MCPErasPeer.with(.legacy, transport) { peer in
            let server = try await peer.mcp.connect()
            #expect(server.era.isStateless == false)
            #expect(server.era.protocolVersion == "2025-11-25")
            #expect(server.era == .handshake)
            #expect(server.serverInfo?.name == "parley-peer")
            #expect(peer.mcp.server == server)
            let tools = try await peer.mcp.listTools().map(\.name)
            #expect(tools.contains("add") && tools.contains("count"), "\(tools)")
            #expect(try await peer.mcp.callTool("add", arguments: ["a": 2, "b": 3]).structuredContent == ["result": 5])
            if let http = peer.http {
                #expect(http.sessionID != nil)
                #expect(http.protocolVersion == "2025-11-25")
                let methods = peer.bodies.messages.compactMap { $0["method"]?.stringValue }
                #expect(Array(methods.prefix(3)) == ["server/discover", "initialize", "notifications/initialized"], "\(methods)")
            }
        }
    }

    // Over stdio, the era detected and pinned is checked with every other stdio test of these suites.
    @Test("pinned to the handshake era, the dual 2.x server gets initialize and a session", arguments: MCPErasTransport.http)
    func pinnedHandshake(transport: MCPErasTransport) async throws {
        try await MCPErasPeer.with(.dual, transport, era: .handshake) { peer in
            let server = try await peer.mcp.connect()
            #expect(server.era == .handshake)
            #expect(!server.era.isStateless)
            #expect(server.serverInfo?.name == MCP2Peer.serverName)
            #expect(try await peer.mcp.callTool("add", arguments: ["a": 1, "b": 1]).structuredContent == ["result": 2])
            if let http = peer.http {
                #expect(http.sessionID != nil)
                let posts = try await peer.posts()
                #expect(
                    Array(posts.compactMap(\.rpcMethod).prefix(2)) == ["initialize", "notifications/initialized"],
                    "\(posts)"
                )
                #expect(!posts.contains { $0.rpcMethod == "server/discover" }, "\(posts)")
                let call = try #require(posts.first { $0.rpcMethod == "tools/call" })
                #expect(call.header("Mcp-Session-Id") == http.sessionID)
                #expect(call.header("MCP-Protocol-Version") == "2025-11-25")
            }
        }
    }

    @Test(
        "pinned to the stateless era, the 1.30 server fails the connection with a ParleyError naming server/discover",
        arguments: [MCPErasTransport.httpJSON, .stdio]
    )
    func pinnedStatelessRefused(transport: MCPErasTransport) async throws {
        try await MCPErasPeer.with(.legacy, transport, era: .stateless) { peer in
            do throws(ParleyError) {
                let server = try await peer.mcp.connect()
                Issue.record("connected to a handshake-only server in the stateless era: \(server)")
            } catch {
                #expect(error.kind == .jsonRPCError || error.kind == .jsonRPCProtocol, "\(error)")
                #expect(error.message.contains("server/discover"), "\(error.message)")
            }
            #expect(peer.mcp.server == nil)
        }
    }

    @Test("pinned to the handshake era, the stateless-only server refuses initialize with -32022, explained")
    func pinnedHandshakeRefused() async throws {
        try await MCPErasPeer.with(.modern, .httpSSE, era: .handshake) { peer in
            do throws(ParleyError) {
                let server = try await peer.mcp.connect()
                Issue.record("a stateless-only server accepted the handshake era: \(server)")
            } catch {
                #expect(error.mcpErrorCode == .unsupportedProtocolVersion, "\(error)")
                #expect(error.mcpSupportedVersions == ["2026-07-28"], "\(error)")
                #expect(error.message.contains("2026-07-28"), "\(error.message)")
            }
        }
    }
}
