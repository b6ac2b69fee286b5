public import Parley

/// A tool the server offers.
public struct MCPTool: Sendable, Hashable, Decodable {
    /// Its name, which ``MCPCallTool`` uses.
    public var name: String
    /// A name for people, if the server gives one.
    public var title: String?
    /// What it does.
    public var description: String?
    /// The JSON Schema of its arguments.
    public var inputSchema: JSONValue?
    /// The JSON Schema of its structured result, if it declares one.
    public var outputSchema: JSONValue?
}
