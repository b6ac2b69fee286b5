public import Parley

/// The client's answer to an ``MCPSamplingRequest``: the message its model produced.
public struct MCPSamplingResult: Sendable, Hashable, Codable {
    /// Who speaks: `"assistant"` unless set.
    public var role: String
    /// The content: a block (`{"type": "text", "text": …}`, an image, audio, a tool use …) or an array of them.
    public var content: JSONValue
    /// The name of the model that produced it.
    public var model: String
    /// Why sampling stopped (`"endTurn"`, `"stopSequence"`, `"maxTokens"`, `"toolUse"` or the provider's own), if
    /// known; left out of the answer when `nil`.
    public var stopReason: String?

    /// An answer with `content` from `model`.
    public init(role: String = "assistant", content: JSONValue, model: String, stopReason: String? = nil) {
        self.role = role
        self.content = content
        self.model = model
        self.stopReason = stopReason
    }

    /// An assistant's answer of one text block, `text`, from `model`.
    public init(text: String, model: String, stopReason: String? = nil) {
        self.init(content: ["type": "text", "text": .string(text)], model: model, stopReason: stopReason)
    }

    private enum CodingKeys: String, CodingKey {
        case role, content, model, stopReason
    }

    /// Decodes an answer; a missing `role` is `"assistant"`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        role = try container.decodeIfPresent(String.self, forKey: .role) ?? "assistant"
        content = try container.decode(JSONValue.self, forKey: .content)
        model = try container.decode(String.self, forKey: .model)
        stopReason = try container.decodeIfPresent(String.self, forKey: .stopReason)
    }
}
