public import Parley

/// What an MCP server said of itself when the client connected: in the stateless era its `server/discover` result, in
/// the handshake era its answer to `initialize`.
public struct MCPServerDescription: Sendable, Hashable {
    /// The era and protocol version spoken with the server: the one discovery found, or the one the server chose in
    /// its answer to `initialize`.
    public var era: MCPEra
    /// The server's name and version, when it gave them.
    public var serverInfo: MCPImplementation?
    /// What the server can do (`tools`, `resources`, `prompts`, `logging`, `completions` …), as sent.
    public var capabilities: JSONValue
    /// How to use the server, for a model's context, if the server says.
    public var instructions: String?
    /// The protocol versions the server lists (stateless era); empty in the handshake era.
    public var supportedVersions: [String]

    /// A description.
    public init(
        era: MCPEra,
        serverInfo: MCPImplementation? = nil,
        capabilities: JSONValue = [:],
        instructions: String? = nil,
        supportedVersions: [String] = []
    ) {
        self.era = era
        self.serverInfo = serverInfo
        self.capabilities = capabilities
        self.instructions = instructions
        self.supportedVersions = supportedVersions
    }
}
