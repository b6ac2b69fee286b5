public import Parley

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
