public import Parley

/// A Model Context Protocol client on any channel: a child process over stdio (newline framing), or
/// ``MCPStreamableHTTPChannel``.
///
/// ```swift
/// let mcp = MCPClient(channel: MCPStreamableHTTPChannel(client: Client(baseURL: server), path: "/mcp"))
/// try await mcp.initialize()
/// for tool in try await mcp.listTools() { print(tool.name) }
/// let sum = try await mcp.callTool("add", arguments: ["a": 2, "b": 3])
/// ```
///
/// Calls that are cancelled or time out send `notifications/cancelled` to the server (``JSONRPCCancellation/mcp``).
public struct MCPClient: Sendable {
    /// The newest protocol version this client speaks: `"2025-11-25"`.
    public static let latestProtocolVersion = "2025-11-25"

    /// The JSON-RPC client underneath, for any other method.
    public let rpc: JSONRPCClient

    /// A client on `channel`; `timeout` bounds each call's wait for its answer (`nil`: no limit).
    public init(channel: any JSONRPCChannel, timeout: Duration? = nil) {
        rpc = JSONRPCClient(channel: channel, timeout: timeout, cancellation: .mcp)
    }

    /// A client on a JSON-RPC client of yours (its ids, coders, timeout and cancellation apply).
    public init(rpc: JSONRPCClient) {
        self.rpc = rpc
    }

    /// Starts the session: `initialize`, then `notifications/initialized`. It then opens the stream of the server's own
    /// requests and notifications (``JSONRPCPushChannel/openPushStream()``: on an ``MCPStreamableHTTPChannel``, its
    /// ``MCPStreamableHTTPChannel/listen(reconnect:)``),
    /// where servers send requests such as `roots/list` that its router answers.
    ///
    /// - Parameters:
    ///   - clientInfo: This client's name and version.
    ///   - protocolVersion: The version asked for; the server may choose another, which the result says.
    ///   - capabilities: What this client offers (such as `["roots": [:]]` when its channel's router answers
    ///     `roots/list`).
    ///   - timeout: The time `initialize` may wait for its answer; `nil` for the client's.
    @discardableResult
    public func initialize(
        clientInfo: MCPImplementation = MCPImplementation(name: "parley", version: "1.0"),
        protocolVersion: String = latestProtocolVersion,
        capabilities: JSONValue = [:],
        timeout: Duration? = nil
    ) async throws(ParleyError) -> MCPInitializeResult {
        let result = try await rpc.call(
            MCPInitialize(protocolVersion: protocolVersion, capabilities: capabilities, clientInfo: clientInfo),
            timeout: timeout
        )
        try await rpc.notify(JSONRPCDynamicMethod("notifications/initialized"))
        // Open before returning: a server sends its requests (roots/list …) on this stream, and drops them while none is open.
        await rpc.channel.pushChannel?.openPushStream()
        return result
    }

    /// Every tool of the server, following `nextCursor` from page to page (at most `maxPages`).
    public func listTools(maxPages: Int = 100) async throws(ParleyError) -> [MCPTool] {
        var tools: [MCPTool] = []
        var cursor: String?
        for _ in 0..<max(maxPages, 1) {
            let page = try await rpc.call(MCPListTools(cursor: cursor))
            tools += page.tools
            guard let next = page.nextCursor, !next.isEmpty, next != cursor else { return tools }
            cursor = next
        }
        throw ParleyError(
            .jsonRPCProtocol,
            "The MCP server's tools/list still had a next page after \(maxPages) pages (\(tools.count) tools); "
                + "raise maxPages if it really has that many."
        )
    }

    /// Calls the tool `name` with `arguments`; a tool that failed returns a result with ``MCPToolResult/isError``.
    public func callTool(
        _ name: String,
        arguments: [String: JSONValue] = [:],
        timeout: Duration? = nil
    ) async throws(ParleyError) -> MCPToolResult {
        try await rpc.call(MCPCallTool(name: name, arguments: arguments), timeout: timeout)
    }

    /// Calls the tool `name` with a progress token: the server's `notifications/progress` for it arrive on the
    /// call's ``JSONRPCProgressCall/progress`` as they come.
    public func callTool(
        _ name: String,
        arguments: [String: JSONValue] = [:],
        timeout: Duration? = nil,
        progress: JSONRPCProgress
    ) -> JSONRPCProgressCall<MCPToolResult> {
        rpc.call(MCPCallTool(name: name, arguments: arguments), progress: progress, timeout: timeout)
    }
}
