import Logging
public import Parley

extension MCPClient {
    /// Starts the session of the handshake era explicitly: `initialize`, then `notifications/initialized`, then opens
    /// the stream of the server's own requests and notifications (``JSONRPCPushChannel/openPushStream()``: on an
    /// ``MCPStreamableHTTPChannel``, its ``MCPStreamableHTTPChannel/listen(reconnect:)``). ``connect()`` does this
    /// by itself with a server of that era; call this to choose the version and capabilities yourself.
    ///
    /// - Parameters:
    ///   - clientInfo: This client's name and version; `nil` for ``Configuration/clientInfo``.
    ///   - protocolVersion: The version asked for; the server may choose another, which the result says.
    ///   - capabilities: What this client offers; `nil` for ``capabilities``.
    ///   - timeout: The time `initialize` may wait for its answer; `nil` for the client's.
    @discardableResult
    public func initialize(
        clientInfo: MCPImplementation? = nil,
        protocolVersion: String = latestHandshakeVersion,
        capabilities: JSONValue? = nil,
        timeout: Duration? = nil
    ) async throws(ParleyError) -> MCPInitializeResult {
        let result = try await handshake(
            version: protocolVersion,
            clientInfo: clientInfo,
            capabilities: capabilities,
            timeout: timeout
        )
        state.connected(Self.description(of: result))
        return result
    }

    /// Calls `server/discover` (stateless era): what the server offers, at the version connected with (or the newest).
    public func discover(timeout: Duration? = nil) async throws(ParleyError) -> MCPDiscoverResult {
        let era = server?.era.isStateless == true ? server?.era ?? .stateless : .stateless
        return try await send(MCPDiscover(), server: MCPServerDescription(era: era), timeout: timeout)
    }

    /// Finds the era and connects in it, as the specification's versioning page says: a `server/discover` at the
    /// newest stateless version; on `-32022` naming a stateless version this client speaks, once more at that one.
    /// Every other refusal (an error object, an HTTP status without one, no answer within
    /// ``Configuration/discoveryTimeout``) means a handshake-era server, except `-32022` naming only stateless
    /// versions this client does not speak, which fails. An `initialize` refused with `-32022` (a server locked to
    /// the stateless era meanwhile) leads to one more discovery.
    func negotiate() async throws(ParleyError) -> MCPServerDescription {
        if let era = configuration.era {
            if era.isStateless { return try await discover(at: era.protocolVersion, timeout: nil) }
            return Self.description(of: try await handshake(version: era.protocolVersion))
        }
        var version = Self.latestProtocolVersion
        for attempt in 0..<2 {
            do {
                let server = try await discover(at: version, timeout: configuration.discoveryTimeout)
                log("the server answered server/discover: \(server.era)")
                return server
            } catch  where error.kind == .transport || error.kind == .cancelled || error.kind == .invalidRequest {
                throw error  // an outage or the caller's cancellation is no verdict on the era
            } catch {
                if let supported = error.mcpSupportedVersions {
                    let mutual = Self.statelessVersions.filter(supported.contains)
                    if let newest = mutual.last, attempt == 0, newest != version {
                        version = newest
                        continue
                    }
                    if mutual.isEmpty, !supported.contains(where: Self.handshakeVersions.contains) {
                        throw MCPErrorCode.explained(error)
                    }
                }
                log("server/discover was refused (\(error.kind)): falling back to the handshake era")
            }
            do {
                return Self.description(of: try await handshake(version: Self.latestHandshakeVersion))
            } catch {
                guard attempt == 0, let supported = error.mcpSupportedVersions,
                    let newest = Self.statelessVersions.filter(supported.contains).last
                else { throw MCPErrorCode.explained(error) }
                version = newest
            }
        }
        throw ParleyError(
            .jsonRPCProtocol,
            "The MCP server refused both server/discover and initialize; it speaks no protocol version this client does."
        )
    }

    /// `server/discover` at `version`, adopted: the server's description in the stateless era, or a handshake-era
    /// server's advertisement (no stateless version listed), which falls back.
    private func discover(at version: String, timeout: Duration?) async throws(ParleyError) -> MCPServerDescription {
        let result = try await send(MCPDiscover(), server: MCPServerDescription(era: MCPEra(version)), timeout: timeout)
        let mutual = Self.statelessVersions.filter(result.supportedVersions.contains)
        guard let chosen = mutual.contains(version) ? version : mutual.last else {
            // A server that answers discovery but lists only handshake versions asks for the handshake.
            throw ParleyError(
                .jsonRPCProtocol,
                "The MCP server answered server/discover listing no stateless protocol version this client speaks "
                    + "(it lists \(result.supportedVersions.prefix(8).map { PrintableText.escaping(String($0.prefix(32))) }))."
            )
        }
        return MCPServerDescription(
            era: MCPEra(chosen),
            serverInfo: result.serverInfo,
            capabilities: result.capabilities,
            instructions: result.instructions,
            supportedVersions: result.supportedVersions
        )
    }

    /// `initialize` at `version` and `notifications/initialized`; then the stream of the server's own messages is
    /// opened, and the log level asked for.
    func handshake(
        version: String,
        clientInfo: MCPImplementation? = nil,
        capabilities: JSONValue? = nil,
        timeout: Duration? = nil
    ) async throws(ParleyError) -> MCPInitializeResult {
        let result = try await rpc.call(
            MCPInitialize(
                protocolVersion: version,
                capabilities: capabilities ?? self.capabilities,
                clientInfo: clientInfo ?? configuration.clientInfo
            ),
            timeout: timeout
        )
        try await rpc.notify(JSONRPCDynamicMethod("notifications/initialized"))
        // Open before returning: a server sends its requests (roots/list …) on this stream, and drops them while none
        // is open.
        await rpc.channel.pushChannel?.openPushStream()
        log("initialize answered: \(result.protocolVersion) (handshake)")
        if let level = state.logLevel ?? configuration.logLevel {
            _ = try await rpc.call(MCPSetLogLevel(level: level), timeout: timeout)
        }
        return result
    }

    static func description(of result: MCPInitializeResult) -> MCPServerDescription {
        // A server that answers initialize with a stateless version is still a handshake-era server (it had a
        // handshake): the era follows what happened, the version is kept as the server said.
        let era = MCPEra(result.protocolVersion)
        return MCPServerDescription(
            era: era.isStateless ? .handshake : era,
            serverInfo: result.serverInfo,
            capabilities: result.capabilities,
            instructions: result.instructions
        )
    }

    func log(_ message: @autoclosure () -> String) {
        configuration.logger?.debug("\(message())", metadata: ["mcp.client": .string(configuration.clientInfo.name)])
    }
}
