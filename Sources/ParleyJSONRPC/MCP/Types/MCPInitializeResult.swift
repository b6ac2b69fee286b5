public import Parley

/// The server's answer to ``MCPInitialize``.
public struct MCPInitializeResult: Sendable, Hashable, Decodable {
    /// The protocol version the server chose: the one asked for, or another it supports.
    public var protocolVersion: String
    /// What the server can do (`tools`, `resources`, `prompts`, `logging` …), as sent.
    public var capabilities: JSONValue
    /// The server's name and version.
    public var serverInfo: MCPImplementation
    /// How to use the server, for a model's context, if the server says.
    public var instructions: String?
}
