/// The client's answer to the server's `roots/list`: `{"roots": […]}`.
public struct MCPListRootsResult: Sendable, Hashable, Codable {
    /// The roots.
    public var roots: [MCPRoot]

    /// An answer listing `roots`.
    public init(roots: [MCPRoot]) {
        self.roots = roots
    }

    private enum CodingKeys: String, CodingKey {
        case roots
    }

    /// Decodes an answer; missing `roots` are none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        roots = try container.decodeIfPresent([MCPRoot].self, forKey: .roots) ?? []
    }
}
