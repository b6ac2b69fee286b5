/// One page of ``MCPListResourceTemplates``.
public struct MCPResourceTemplatePage: Sendable, Hashable, Decodable {
    /// The resource templates of this page; empty when the server leaves them out.
    public var resourceTemplates: [MCPResourceTemplate]
    /// The cursor of the next page; `nil` on the last.
    public var nextCursor: String?

    private enum CodingKeys: String, CodingKey {
        case resourceTemplates, nextCursor
    }

    /// Decodes a page; missing `resourceTemplates` are none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        resourceTemplates = try container.decodeIfPresent([MCPResourceTemplate].self, forKey: .resourceTemplates) ?? []
        nextCursor = try container.decodeIfPresent(String.self, forKey: .nextCursor)
    }
}
