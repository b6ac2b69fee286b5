/// An argument an ``MCPPrompt`` takes.
public struct MCPPromptArgument: Sendable, Hashable, Decodable {
    /// Its name, the key in ``MCPGetPrompt``'s arguments.
    public var name: String
    /// A name for people, if the server gives one.
    public var title: String?
    /// What it means.
    public var description: String?
    /// Whether it must be given.
    public var required: Bool

    private enum CodingKeys: String, CodingKey {
        case name, title, description, required
    }

    /// Decodes an argument; a missing `required` is `false`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        title = try container.decodeIfPresent(String.self, forKey: .title)
        description = try container.decodeIfPresent(String.self, forKey: .description)
        required = try container.decodeIfPresent(Bool.self, forKey: .required) ?? false
    }
}
