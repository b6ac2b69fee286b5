public import Parley

/// A prompt or prompt template the server offers, from ``MCPListPrompts``.
public struct MCPPrompt: Sendable, Hashable, Decodable {
    /// Its name, which ``MCPGetPrompt`` uses.
    public var name: String
    /// A name for people, if the server gives one.
    public var title: String?
    /// What it provides.
    public var description: String?
    /// The arguments it takes; empty when it takes none.
    public var arguments: [MCPPromptArgument]
    /// Icons for a user interface, as sent.
    public var icons: [JSONValue]?
    /// The `_meta` member, as sent.
    public var meta: JSONValue?

    private enum CodingKeys: String, CodingKey {
        case name, title, description, arguments, icons
        case meta = "_meta"
    }

    /// Decodes a prompt; missing `arguments` are none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        title = try container.decodeIfPresent(String.self, forKey: .title)
        description = try container.decodeIfPresent(String.self, forKey: .description)
        arguments = try container.decodeIfPresent([MCPPromptArgument].self, forKey: .arguments) ?? []
        icons = try container.decodeIfPresent([JSONValue].self, forKey: .icons)
        meta = try container.decodeIfPresent(JSONValue.self, forKey: .meta)
    }
}
