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

/// `tools/list`: one page of the server's tools.
public struct MCPListTools: JSONRPCMethod {
    /// One page.
    public typealias Result = MCPToolPage
    /// `"tools/list"`.
    public static let name = "tools/list"
    /// `{cursor?}`.
    public let params: JSONValue

    /// The page after `cursor`; the first page without one.
    public init(cursor: String? = nil) {
        params = cursor.map { ["cursor": .string($0)] } ?? [:]
    }
}

/// `tools/call`: runs a tool.
public struct MCPCallTool: JSONRPCMethod {
    /// The tool's result; a tool that failed answers with ``MCPToolResult/isError`` set, not an error object.
    public typealias Result = MCPToolResult
    /// `"tools/call"`.
    public static let name = "tools/call"
    /// `{name, arguments}`.
    public let params: JSONValue

    /// A call of the tool `name` with `arguments`.
    public init(name: String, arguments: [String: JSONValue] = [:]) {
        params = ["name": .string(name), "arguments": .object(arguments)]
    }
}
