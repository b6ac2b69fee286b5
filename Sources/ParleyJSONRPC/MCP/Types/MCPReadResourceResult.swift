/// The result of ``MCPReadResource``.
public struct MCPReadResourceResult: Sendable, Hashable, Decodable {
    /// The contents: one for a plain resource, several for a resource with parts.
    public var contents: [MCPResourceContents]

    private enum CodingKeys: String, CodingKey {
        case contents
    }

    /// Decodes a result; a missing `contents` is empty.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        contents = try container.decodeIfPresent([MCPResourceContents].self, forKey: .contents) ?? []
    }
}
