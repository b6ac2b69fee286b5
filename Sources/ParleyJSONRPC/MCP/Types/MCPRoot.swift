/// A directory or file the server may work on, which the client lists in its answer to `roots/list`.
public struct MCPRoot: Sendable, Hashable, Codable {
    /// Its URI; the specification asks for `file://` for now.
    public var uri: String
    /// A name for people, if any.
    public var name: String?

    /// A root at `uri`, named `name`.
    public init(uri: String, name: String? = nil) {
        self.uri = uri
        self.name = name
    }
}
