/// One page of ``MCPListPrompts``.
public struct MCPPromptPage: Sendable, Hashable, Decodable {
    /// The prompts of this page; empty when the server leaves them out.
    public var prompts: [MCPPrompt]
    /// The cursor of the next page; `nil` on the last.
    public var nextCursor: String?

    private enum CodingKeys: String, CodingKey {
        case prompts, nextCursor
    }

    /// Decodes a page; missing `prompts` are none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        prompts = try container.decodeIfPresent([MCPPrompt].self, forKey: .prompts) ?? []
        nextCursor = try container.decodeIfPresent(String.self, forKey: .nextCursor)
    }
}
