public import Parley

/// The result of ``MCPCallTool``.
public struct MCPToolResult: Sendable, Hashable, Decodable {
    /// The content blocks (`{"type": "text", "text": …}`, images, resources …), as sent.
    public var content: [JSONValue]
    /// The structured result, when the tool gives one.
    public var structuredContent: JSONValue?
    /// Whether the tool failed; its content then says why.
    public var isError: Bool

    /// A result.
    public init(content: [JSONValue], structuredContent: JSONValue? = nil, isError: Bool = false) {
        self.content = content
        self.structuredContent = structuredContent
        self.isError = isError
    }

    /// The text of the `text` content blocks, joined with line feeds.
    public var text: String {
        content.compactMap { block in block["type"]?.stringValue == "text" ? block["text"]?.stringValue : nil }
            .joined(separator: "\n")
    }

    private enum CodingKeys: String, CodingKey {
        case content, structuredContent, isError
    }

    /// Decodes a result; a missing `content` is empty and a missing `isError` false.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        content = try container.decodeIfPresent([JSONValue].self, forKey: .content) ?? []
        structuredContent = try container.decodeIfPresent(JSONValue.self, forKey: .structuredContent)
        isError = try container.decodeIfPresent(Bool.self, forKey: .isError) ?? false
    }
}
