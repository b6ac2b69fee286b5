/// The protocol era an ``MCPClient`` speaks with a server, and the version it sends.
///
/// MCP has two eras. The **handshake era** (2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05) opens a session with
/// `initialize`; over Streamable HTTP the server assigns an `Mcp-Session-Id`, sends its own requests (sampling,
/// elicitation, roots) on any stream, and a `GET` stream carries what it sends unprompted. The **stateless era**
/// (2026-07-28) has no `initialize` and no session: every request carries the protocol version and the client's
/// capabilities in `_meta`, `server/discover` tells what a server offers, a server asks the client for input by
/// answering a request with `resultType: "input_required"`, and `subscriptions/listen` carries what it sends
/// unprompted.
///
/// ```swift
/// let pinned = MCPClient(channel: MCPStreamableHTTPChannel(client: Client(baseURL: serverURL)), era: .handshake)
/// ```
public struct MCPEra: Sendable, Hashable, CustomStringConvertible {
    /// The protocol version sent: in `_meta` and `MCP-Protocol-Version` (stateless era), or asked for in
    /// `initialize` (handshake era, where the server may choose another: ``MCPServerDescription/era`` says which).
    public let protocolVersion: String

    /// An era by its protocol version: stateless for the versions of ``MCPClient/statelessVersions``, the handshake
    /// era for any other.
    public init(_ protocolVersion: String) {
        self.protocolVersion = protocolVersion
    }

    /// Whether this is the stateless era (2026-07-28 and later): no `initialize`, no session.
    public var isStateless: Bool { MCPClient.statelessVersions.contains(protocolVersion) }

    /// The stateless era at its newest version, 2026-07-28.
    public static let stateless = MCPEra(MCPClient.latestProtocolVersion)

    /// The handshake era at its newest version, 2025-11-25.
    public static let handshake = MCPEra(MCPClient.latestHandshakeVersion)

    /// `2026-07-28 (stateless)` or `2025-11-25 (handshake)`.
    public var description: String { "\(protocolVersion) (\(isStateless ? "stateless" : "handshake"))" }
}
