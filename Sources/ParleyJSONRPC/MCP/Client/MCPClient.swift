public import Logging
public import Parley

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A Model Context Protocol client on any channel: a child process over stdio (newline framing), or
/// ``MCPStreamableHTTPChannel``. It speaks both protocol eras (``MCPEra``): the stateless era of 2026-07-28 by
/// default, and the handshake era (2025-11-25 and older) with a server that speaks only that.
///
/// ```swift
/// let mcp = MCPClient(channel: MCPStreamableHTTPChannel(client: Client(baseURL: serverURL)))
/// let server = try await mcp.connect()         // server/discover, or initialize with an older server
/// print(server.era)                             // 2026-07-28 (stateless)
/// for tool in try await mcp.listTools() { print(tool.name) }
/// let sum = try await mcp.callTool("add", arguments: ["a": 2, "b": 3])
/// ```
///
/// The era is detected once, the way the specification's versioning page says: a `server/discover` at 2026-07-28; a
/// server that answers it speaks the stateless era, one that refuses it with anything but `-32022` naming only
/// stateless versions speaks the handshake era, and gets `initialize`. The outcome is kept for the client and its
/// copies; ``Configuration/era`` pins an era instead. Every call connects first when nothing did yet.
///
/// What the server asks of the client (sampling, elicitation, roots) is answered by ``Configuration/handlers`` in both
/// eras. Calls that are cancelled or time out tell the server (``JSONRPCCancellation/mcp``; in the stateless era over
/// HTTP, by closing the call's stream).
public struct MCPClient: Sendable {
    /// The newest protocol version this client speaks: `"2026-07-28"`.
    public static let latestProtocolVersion = "2026-07-28"
    /// The newest version of the handshake era: `"2025-11-25"`.
    public static let latestHandshakeVersion = "2025-11-25"
    /// The versions of the stateless era this client speaks, oldest first.
    public static let statelessVersions = ["2026-07-28"]
    /// The versions of the handshake era this client speaks, oldest first.
    public static let handshakeVersions = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]

    /// How the client talks to the server.
    public struct Configuration: Sendable {
        /// This client's name and version, sent to the server.
        public var clientInfo = MCPImplementation(name: "parley", version: "1.0")
        /// The era to speak; `nil` detects it (the default).
        public var era: MCPEra?
        /// How the server's requests (sampling, elicitation, roots) are answered; the capabilities they make are
        /// advertised.
        public var handlers = MCPClientHandlers()
        /// More client capabilities to advertise (such as `experimental`), merged over the handlers' own.
        public var capabilities: JSONValue = [:]
        /// The level of the server's log messages to receive (`"debug"`, `"info"`, … `"emergency"`); `nil` asks for
        /// none. Sent with each request in the stateless era, with `logging/setLevel` in the handshake era.
        public var logLevel: String?
        /// The most rounds of `input_required` answers one call goes through before it fails.
        public var maxInputRounds = 10
        /// The most pages a list follows (`nextCursor`) before it fails.
        public var maxPages = 100
        /// How long `server/discover` may take while the era is detected before the client falls back to the
        /// handshake era (a server that ignores unknown requests never answers it).
        public var discoveryTimeout: Duration = .seconds(10)
        /// Keeps results the server marks cacheable (`ttlMs`) for that long; `nil` keeps none (the default).
        public var resultCache: MCPResultCache.Limits?
        /// Where the client logs what it drops or decides (a tool whose `x-mcp-header` annotations are invalid, the
        /// era chosen); `nil` logs nothing.
        public var logger: Logger?

        /// The defaults: detect the era, no handlers, no log messages, no result cache.
        public init() {}
    }

    /// The JSON-RPC client underneath, for any other method.
    public let rpc: JSONRPCClient
    /// How the client talks to the server.
    public let configuration: Configuration
    let state: MCPClientState

    /// A client on `channel`; `timeout` bounds each call's wait for its answer (`nil`: no limit).
    public init(channel: any JSONRPCChannel, timeout: Duration? = nil, configuration: Configuration = Configuration()) {
        self.init(rpc: JSONRPCClient(channel: channel, timeout: timeout, cancellation: .mcp), configuration: configuration)
    }

    /// A client on `channel` speaking `era` (`nil`: detected), answering the server with `handlers`.
    public init(
        channel: any JSONRPCChannel,
        timeout: Duration? = nil,
        era: MCPEra?,
        handlers: MCPClientHandlers = MCPClientHandlers()
    ) {
        var configuration = Configuration()
        configuration.era = era
        configuration.handlers = handlers
        self.init(channel: channel, timeout: timeout, configuration: configuration)
    }

    /// A client on a JSON-RPC client of yours (its ids, coders, timeout and cancellation apply).
    public init(rpc: JSONRPCClient, configuration: Configuration = Configuration()) {
        self.rpc = rpc
        self.configuration = configuration
        self.state = MCPClientState(cache: configuration.resultCache.map(MCPResultCache.init(limits:)))
        // The handshake era's requests arrive on the channel: its router answers them with the handlers.
        rpc.channel.pushChannel?.answerPeerRequests(with: configuration.handlers.router)
    }

    /// What the server said of itself once connected; `nil` before.
    public var server: MCPServerDescription? { state.server }

    /// The client capabilities advertised: the handlers' and ``Configuration/capabilities`` merged.
    public var capabilities: JSONValue {
        var merged = configuration.handlers.capabilities.objectValue ?? [:]
        for (key, value) in configuration.capabilities.objectValue ?? [:] { merged[key] = value }
        return .object(merged)
    }

    /// Connects: detects the era (or uses the one pinned), then `server/discover` (stateless era) or `initialize` and
    /// `notifications/initialized` (handshake era, which also opens the stream of the server's own messages). Once
    /// connected, it returns at once; concurrent callers share one connection attempt.
    @discardableResult
    public func connect() async throws(ParleyError) -> MCPServerDescription {
        try await state.connect { () async throws(ParleyError) in try await negotiate() }
    }

    /// Sends `method` as an MCP request and returns its result: connected first; in the stateless era with `_meta`
    /// and the routing headers, through as many `input_required` rounds as the server asks for (each a new id, its
    /// state echoed untouched, at most ``Configuration/maxInputRounds``).
    ///
    /// ```swift
    /// let page = try await mcp.send(MCPListPrompts())
    /// ```
    public func send<Method: JSONRPCMethod>(
        _ method: Method,
        timeout: Duration? = nil
    ) async throws(ParleyError) -> Method.Result where Method.Params == JSONValue {
        let server = try await connect()
        return try await send(method, server: server, timeout: timeout)
    }

    /// ``send(_:timeout:)`` once connected to `server`.
    func send<Method: JSONRPCMethod>(
        _ method: Method,
        server: MCPServerDescription,
        timeout: Duration?,
        watch: JSONRPCCallWatch? = nil
    ) async throws(ParleyError) -> Method.Result where Method.Params == JSONValue {
        let name = method.methodName
        let key = state.cache.flatMap { _ in MCPResultCache.key(name, method.params) }
        if let key, let cached: Method.Result = state.cache?.value(for: key) { return cached }
        var answers: JSONValue?
        var requestState: String?
        var rounds = 0
        var resent = false
        while true {
            let request = self.request(method, era: server.era, answers: answers, requestState: requestState)
            let outcome: MCPOutcome<Method.Result>
            do {
                // One watch spans every round: its total is the call's, its idle clock restarts with progress and
                // with each round's request (the handlers' time is not the server's silence).
                if let watch {
                    outcome = try await rpc.call(request, watch: watch)
                } else {
                    outcome = try await rpc.call(request, timeout: timeout)
                }
            } catch {
                if server.era.isStateless, method.isRepeatable, !resent, MCPStreamBroke.caused(error) {
                    // A stateless stream cannot resume: a call safe to repeat goes again, with a new id.
                    resent = true
                    continue
                }
                if try await retryWithParameterHeaders(error, name: name, params: method.params) { continue }
                throw MCPErrorCode.explained(error)
            }
            switch outcome.kind {
            case .complete(let value):
                if let key, let ttl = outcome.ttl { state.cache?.store(value, for: key, ttl: ttl) }
                return value
            case .inputRequired(let asked):
                rounds += 1
                guard rounds <= configuration.maxInputRounds else {
                    throw ParleyError(
                        .jsonRPCProtocol,
                        "The MCP server still asked for input after \(configuration.maxInputRounds) rounds of \(name) "
                            + "(maxInputRounds); raise it if the server legitimately asks that many times."
                    )
                }
                answers = try await answer(asked, of: name)
                requestState = asked.requestState
            }
        }
    }

    /// The request as sent in `era`: the method's parameters, in the stateless era with `_meta` (protocol version,
    /// client info and capabilities, log level) and the routing headers, and the answers of the last round.
    func request<Method: JSONRPCMethod>(
        _ method: Method,
        era: MCPEra,
        answers: JSONValue?,
        requestState: String?
    ) -> MCPRequest<Method.Result> where Method.Params == JSONValue {
        var params = method.params.objectValue ?? [:]
        if let answers { params["inputResponses"] = answers }
        if let requestState { params["requestState"] = .string(requestState) }
        var headers: Headers = [:]
        if era.isStateless {
            var meta = params["_meta"]?.objectValue ?? [:]
            meta["io.modelcontextprotocol/protocolVersion"] = .string(era.protocolVersion)
            meta["io.modelcontextprotocol/clientInfo"] = [
                "name": .string(configuration.clientInfo.name), "version": .string(configuration.clientInfo.version),
            ]
            meta["io.modelcontextprotocol/clientCapabilities"] = capabilities
            if meta["io.modelcontextprotocol/logLevel"] == nil, let level = state.logLevel ?? configuration.logLevel {
                meta["io.modelcontextprotocol/logLevel"] = .string(level)
            }
            params["_meta"] = .object(meta)
            headers = MCPRoutingHeaders.fields(
                version: era.protocolVersion,
                method: method.methodName,
                params: .object(params),
                parameterHeaders: method.methodName == "tools/call"
                    ? params["name"]?.stringValue.flatMap(state.parameterHeaders(of:)) ?? [:] : [:]
            )
        }
        return MCPRequest(
            methodName: method.methodName,
            params: .object(params),
            isRepeatable: method.isRepeatable,
            headerFields: method.headerFields.merging(headers)
        )
    }

    /// The answers to one `input_required` round, by key, asked of the handlers at once.
    private func answer(_ asked: MCPInputRequired, of name: String) async throws(ParleyError) -> JSONValue {
        let handlers = configuration.handlers
        let answers = await withTaskGroup(of: (String, Result<JSONValue, JSONRPCError>).self) { group in
            for (key, request) in asked.inputRequests {
                group.addTask { (key, await handlers.answer(request.method, params: request.params)) }
            }
            var answers: [String: Result<JSONValue, JSONRPCError>] = [:]
            for await (key, answer) in group { answers[key] = answer }
            return answers
        }
        var collected: [String: JSONValue] = [:]
        for (key, answer) in answers.sorted(by: { $0.key < $1.key }) {
            switch answer {
            case .success(let value): collected[key] = value
            case .failure(let refusal):
                let method = asked.inputRequests[key]?.method ?? "?"
                throw ParleyError(
                    .jsonRPCProtocol,
                    "The MCP server asked for input (\(PrintableText.escaping(String(method.prefix(64))))) to complete "
                        + "\(name), and this client could not give it: \(refusal.message). Set the matching handler in "
                        + "MCPClient.Configuration.handlers.",
                    underlying: refusal
                )
            }
        }
        return .object(collected)
    }
}
