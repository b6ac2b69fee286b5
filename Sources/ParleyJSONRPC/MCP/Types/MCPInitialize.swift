public import Parley

/// `initialize`: the first call of an MCP session, which negotiates the protocol version and capabilities.
public struct MCPInitialize: JSONRPCMethod {
    /// The server's answer.
    public typealias Result = MCPInitializeResult
    /// `"initialize"`.
    public static let name = "initialize"
    /// `{protocolVersion, capabilities, clientInfo}`.
    public let params: JSONValue

    /// An `initialize` call asking for `protocolVersion`, offering `capabilities`, naming the client `clientInfo`.
    public init(protocolVersion: String, capabilities: JSONValue = [:], clientInfo: MCPImplementation) {
        params = [
            "protocolVersion": .string(protocolVersion),
            "capabilities": capabilities,
            "clientInfo": ["name": .string(clientInfo.name), "version": .string(clientInfo.version)],
        ]
    }
}
