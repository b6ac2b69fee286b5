public import Parley

extension MCPClient {
    /// Every resource of the server, following `nextCursor` (at most ``Configuration/maxPages`` pages).
    public func listResources(maxPages: Int? = nil) async throws(ParleyError) -> [MCPResource] {
        let server = try await connect()
        return try await pages(maxPages: maxPages, what: "resources") { cursor throws(ParleyError) in
            let page = try await send(MCPListResources(cursor: cursor), server: server, timeout: nil)
            return (page.resources, page.nextCursor)
        }
    }

    /// Every resource template of the server (URIs with `{placeholders}`), following `nextCursor`.
    public func listResourceTemplates(maxPages: Int? = nil) async throws(ParleyError) -> [MCPResourceTemplate] {
        let server = try await connect()
        return try await pages(maxPages: maxPages, what: "resource templates") { cursor throws(ParleyError) in
            let page = try await send(MCPListResourceTemplates(cursor: cursor), server: server, timeout: nil)
            return (page.resourceTemplates, page.nextCursor)
        }
    }

    /// Reads the resource `uri`: its contents, text or binary (``MCPResourceContents/data``).
    public func readResource(_ uri: String, timeout: Duration? = nil) async throws(ParleyError) -> [MCPResourceContents] {
        try await send(MCPReadResource(uri: uri), timeout: timeout).contents
    }

    /// Every prompt of the server, following `nextCursor`.
    public func listPrompts(maxPages: Int? = nil) async throws(ParleyError) -> [MCPPrompt] {
        let server = try await connect()
        return try await pages(maxPages: maxPages, what: "prompts") { cursor throws(ParleyError) in
            let page = try await send(MCPListPrompts(cursor: cursor), server: server, timeout: nil)
            return (page.prompts, page.nextCursor)
        }
    }

    /// The prompt `name` with its `arguments` filled in: its messages.
    public func getPrompt(
        _ name: String,
        arguments: [String: String] = [:],
        timeout: Duration? = nil
    ) async throws(ParleyError) -> MCPPromptResult {
        try await send(MCPGetPrompt(name: name, arguments: arguments), timeout: timeout)
    }

    /// The values the server suggests for the argument `argument` of a prompt or resource template, as typed so far
    /// (`value`), given the arguments already chosen (`context`).
    public func complete(
        _ reference: MCPCompletionReference,
        argument: String,
        value: String,
        context: [String: String] = [:],
        timeout: Duration? = nil
    ) async throws(ParleyError) -> MCPCompletion {
        try await send(MCPComplete(reference, argument: argument, value: value, context: context), timeout: timeout)
    }

    /// Asks for the server's log messages at `level` and above (``logMessages()``): in the stateless era the level goes
    /// with every later request (log messages arrive on a request's own stream), in the handshake era with
    /// `logging/setLevel`. Logging is deprecated in 2026-07-28 and still supported.
    public func setLogLevel(_ level: String) async throws(ParleyError) {
        state.logLevel = level
        let server = try await connect()
        guard !server.era.isStateless else { return }
        _ = try await send(MCPSetLogLevel(level: level), server: server, timeout: nil)
    }

    /// Checks that the server answers: `ping`.
    public func ping(timeout: Duration? = nil) async throws(ParleyError) {
        _ = try await send(MCPPing(), timeout: timeout)
    }
}
