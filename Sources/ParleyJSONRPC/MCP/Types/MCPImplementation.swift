/// The name and version of an MCP client or server.
public struct MCPImplementation: Sendable, Hashable, Codable {
    /// The name, such as `"parley"`.
    public var name: String
    /// The version.
    public var version: String

    /// An implementation.
    public init(name: String, version: String) {
        self.name = name
        self.version = version
    }
}
