/// One page of ``MCPListResources``.
public struct MCPResourcePage: Sendable, Hashable, Decodable {
    /// The resources of this page; empty when the server leaves them out.
    public var resources: [MCPResource]
    /// The cursor of the next page; `nil` on the last.
    public var nextCursor: String?

    private enum CodingKeys: String, CodingKey {
        case resources, nextCursor
    }

    /// Decodes a page; missing `resources` are none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        resources = try container.decodeIfPresent([MCPResource].self, forKey: .resources) ?? []
        nextCursor = try container.decodeIfPresent(String.self, forKey: .nextCursor)
    }
}
