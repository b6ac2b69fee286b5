import Logging
public import Parley

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension MCPClient {
    /// Every tool of the server, following `nextCursor` from page to page (at most ``Configuration/maxPages``).
    ///
    /// Schemas, icons and annotations are kept as sent (no `$ref` is resolved). A tool whose `x-mcp-header`
    /// annotations are invalid is left out, with the reason logged (``Configuration/logger``): a call of it could not
    /// carry the headers the stateless era requires. The others' annotations are kept, so that their calls carry
    /// `Mcp-Param-*` headers.
    public func listTools(maxPages: Int? = nil) async throws(ParleyError) -> [MCPTool] {
        let server = try await connect()
        let tools = try await pages(maxPages: maxPages, what: "tools") { cursor throws(ParleyError) in
            let page = try await send(MCPListTools(cursor: cursor), server: server, timeout: nil)
            return (page.tools, page.nextCursor)
        }
        return tools.filter { tool in
            switch MCPRoutingHeaders.parameterHeaders(of: tool.inputSchema) {
            case .success(let headers):
                state.setParameterHeaders(headers, of: tool.name)
                return true
            case .failure(let invalid):
                state.setParameterHeaders(nil, of: tool.name)
                configuration.logger?.warning(
                    "MCP tool left out: its x-mcp-header annotations are invalid",
                    metadata: [
                        "mcp.tool": .string(PrintableText.escaping(String(tool.name.prefix(128)))),
                        "reason": .string(invalid.reason),
                    ]
                )
                return false
            }
        }
    }

    /// Calls the tool `name` with `arguments`; a tool that failed returns a result with ``MCPToolResult/isError``.
    ///
    /// What the server asks for on the way (an elicitation, a sampling, the roots) is answered by
    /// ``Configuration/handlers``: through `input_required` rounds in the stateless era, as requests of the server's
    /// in the handshake era.
    public func callTool(
        _ name: String,
        arguments: [String: JSONValue] = [:],
        timeout: Duration? = nil
    ) async throws(ParleyError) -> MCPToolResult {
        try await send(MCPCallTool(name: name, arguments: arguments), timeout: timeout)
    }

    /// Calls the tool `name` with a progress token: the server's `notifications/progress` for it arrive on the
    /// call's ``JSONRPCProgressCall/progress`` as they come. `timeout` bounds the whole call (every round).
    public func callTool(
        _ name: String,
        arguments: [String: JSONValue] = [:],
        timeout: Duration? = nil,
        progress: JSONRPCProgress
    ) -> JSONRPCProgressCall<MCPToolResult> {
        callTool(name, arguments: arguments, limits: JSONRPCCallLimits(total: timeout), progress: progress)
    }

    /// Calls the tool `name` with a progress token within `limits`: each progress notification restarts the idle
    /// clock, the total is a hard cap (over every `input_required` round) that no progress extends; when either
    /// passes, the call fails with ``/Parley/ParleyError/Kind/timeout`` naming it, and the server is told. The idle
    /// clock also starts again with each `input_required` round: the time the handlers take to answer (a user
    /// filling a form) is not the server's silence.
    ///
    /// ```swift
    /// let call = mcp.callTool("count", arguments: ["n": 3], limits: JSONRPCCallLimits(total: .seconds(60), idle: .seconds(5)), progress: .mcp)
    /// for await update in call.progress { print(update.progress ?? 0) }
    /// print(try await call.value.text)
    /// ```
    public func callTool(
        _ name: String,
        arguments: [String: JSONValue] = [:],
        limits: JSONRPCCallLimits,
        progress: JSONRPCProgress
    ) -> JSONRPCProgressCall<MCPToolResult> {
        let (updates, continuation) = AsyncStream.makeStream(
            of: JSONRPCProgressUpdate.self,
            bufferingPolicy: .bufferingNewest(256)
        )
        let token = JSONValue.string("parley-\(UUID().uuidString.lowercased())")
        // Unstructured: the call returns at once, its progress read as it runs; JSONRPCProgressCall awaits or cancels it.
        let task = Task { () async throws -> MCPToolResult in
            defer { continuation.finish() }
            let server = try await connect()
            let plain = MCPCallTool(name: name, arguments: arguments)
            let method = MCPMethod<MCPToolResult>(methodName: MCPCallTool.name, params: try progress.attach(token, plain.params))
            // Watching starts before the call is sent, so no notification can arrive unseen.
            let subscription = try rpc.channel.watch(progress.matcher, key: token)
            let watch = JSONRPCCallWatch(limits, fallback: rpc.timeout, watchesProgress: subscription != nil)
            return try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    guard let subscription else { return }
                    for try await notification in subscription {
                        watch?.restart()
                        continuation.yield(progress.update(notification))
                    }
                }
                defer { group.cancelAll() }
                let result: Result<MCPToolResult, ParleyError>
                do throws(ParleyError) {
                    result = .success(try await send(method, server: server, timeout: limits.total, watch: watch))
                } catch {
                    result = .failure(error)
                }
                await subscription?.cancel()
                try? await group.waitForAll()
                return try result.get()
            }
        }
        return JSONRPCProgressCall(progress: updates, token: token, task: task)
    }

    /// The items of every page of a list, following `nextCursor` (at most `maxPages`, else the configuration's).
    func pages<Item>(
        maxPages: Int?,
        what: String,
        _ page: (String?) async throws(ParleyError) -> ([Item], String?)
    ) async throws(ParleyError) -> [Item] {
        let limit = max(maxPages ?? configuration.maxPages, 1)
        var items: [Item] = []
        var cursor: String?
        for _ in 0..<limit {
            let (more, next) = try await page(cursor)
            items += more
            guard let next, !next.isEmpty, next != cursor else { return items }
            cursor = next
        }
        throw ParleyError(
            .jsonRPCProtocol,
            "The MCP server's list of \(what) still had a next page after \(limit) pages (\(items.count) \(what)); "
                + "raise maxPages if it really has that many."
        )
    }

    /// Whether a `tools/call` refused for its headers (`-32020`) should go again: when the tool's `x-mcp-header`
    /// names were not known (it was not listed), they are listed, once.
    func retryWithParameterHeaders(_ error: ParleyError, name: String, params: JSONValue) async throws(ParleyError) -> Bool {
        guard name == "tools/call", error.mcpErrorCode == .headerMismatch, let tool = params["name"]?.stringValue,
            !state.knowsParameterHeaders(of: tool)
        else { return false }
        _ = try await listTools()
        return state.knowsParameterHeaders(of: tool)
    }
}
