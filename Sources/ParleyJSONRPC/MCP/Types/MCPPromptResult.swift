/// The result of ``MCPGetPrompt``: the prompt's messages, its arguments filled in.
public struct MCPPromptResult: Sendable, Hashable, Decodable {
    /// What the prompt is for, if the server says.
    public var description: String?
    /// The messages.
    public var messages: [MCPPromptMessage]

    private enum CodingKeys: String, CodingKey {
        case description, messages
    }

    /// Decodes a result; missing `messages` are none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        description = try container.decodeIfPresent(String.self, forKey: .description)
        messages = try container.decodeIfPresent([MCPPromptMessage].self, forKey: .messages) ?? []
    }
}
