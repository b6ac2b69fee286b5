public import Parley

/// One message of an ``MCPPromptResult``.
public struct MCPPromptMessage: Sendable, Hashable, Decodable {
    /// Who speaks: `"user"` or `"assistant"`.
    public var role: String
    /// The content block (`{"type": "text", "text": …}`, an image, audio, a resource or a resource link), as sent.
    public var content: JSONValue

    /// The text of a `text` content block; `nil` for any other.
    public var text: String? {
        content["type"]?.stringValue == "text" ? content["text"]?.stringValue : nil
    }
}
