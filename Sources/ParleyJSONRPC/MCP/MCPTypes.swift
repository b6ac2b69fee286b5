public import Parley

/// The name and version of an MCP client or server.
public struct MCPImplementation: Sendable, Hashable, Codable {
    /// The name, such as `"parley"`.
    public var name: String
    /// The version.
    public var version: String

    /// An implementation.
    public init(name: String, version: String) {
        self.name = name
        self.version = version
    }
}

/// The server's answer to ``MCPInitialize``.
public struct MCPInitializeResult: Sendable, Hashable, Decodable {
    /// The protocol version the server chose: the one asked for, or another it supports.
    public var protocolVersion: String
    /// What the server can do (`tools`, `resources`, `prompts`, `logging` …), as sent.
    public var capabilities: JSONValue
    /// The server's name and version.
    public var serverInfo: MCPImplementation
    /// How to use the server, for a model's context, if the server says.
    public var instructions: String?
}

/// A tool the server offers.
public struct MCPTool: Sendable, Hashable, Decodable {
    /// Its name, which ``MCPCallTool`` uses.
    public var name: String
    /// A name for people, if the server gives one.
    public var title: String?
    /// What it does.
    public var description: String?
    /// The JSON Schema of its arguments.
    public var inputSchema: JSONValue?
    /// The JSON Schema of its structured result, if it declares one.
    public var outputSchema: JSONValue?
}

/// One page of ``MCPListTools``.
public struct MCPToolPage: Sendable, Hashable, Decodable {
    /// The tools of this page.
    public var tools: [MCPTool]
    /// The cursor of the next page; `nil` on the last.
    public var nextCursor: String?
}

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
