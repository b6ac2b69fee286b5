public import Parley

/// The server's `sampling/createMessage` request: the params, asking the client to run its language model.
public struct MCPSamplingRequest: Sendable, Hashable, Decodable {
    /// The conversation (`{role, content}` each, content a block or an array of blocks), as sent.
    public var messages: [JSONValue]
    /// The system prompt the server asks for; the client may change or drop it.
    public var systemPrompt: String?
    /// The most tokens to sample.
    public var maxTokens: Int
    /// The sampling temperature, if the server asks for one.
    public var temperature: Double?
    /// Sequences that stop sampling.
    public var stopSequences: [String]?
    /// Which model the server would prefer (`hints`, `costPriority` …), as sent; the client may ignore it.
    public var modelPreferences: JSONValue?
    /// Which servers' context to include: `"none"`, `"thisServer"` or `"allServers"` (the last two deprecated).
    public var includeContext: String?
    /// Tools the model may use (``MCPTool``-shaped), as sent.
    public var tools: [JSONValue]?
    /// How the model may use them (`{"mode": "auto" | "required" | "none"}`), as sent.
    public var toolChoice: JSONValue?
    /// Provider-specific metadata to pass through, as sent.
    public var metadata: JSONValue?

    /// A request, as a test or an in-process server builds one.
    public init(
        messages: [JSONValue],
        systemPrompt: String? = nil,
        maxTokens: Int,
        temperature: Double? = nil,
        stopSequences: [String]? = nil,
        modelPreferences: JSONValue? = nil,
        includeContext: String? = nil,
        tools: [JSONValue]? = nil,
        toolChoice: JSONValue? = nil,
        metadata: JSONValue? = nil
    ) {
        self.messages = messages
        self.systemPrompt = systemPrompt
        self.maxTokens = maxTokens
        self.temperature = temperature
        self.stopSequences = stopSequences
        self.modelPreferences = modelPreferences
        self.includeContext = includeContext
        self.tools = tools
        self.toolChoice = toolChoice
        self.metadata = metadata
    }

    private enum CodingKeys: String, CodingKey {
        case messages, systemPrompt, maxTokens, temperature, stopSequences, modelPreferences, includeContext, tools
        case toolChoice, metadata
    }

    /// Decodes the params; missing `messages` are none. `maxTokens` is required.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        messages = try container.decodeIfPresent([JSONValue].self, forKey: .messages) ?? []
        systemPrompt = try container.decodeIfPresent(String.self, forKey: .systemPrompt)
        maxTokens = try container.decode(Int.self, forKey: .maxTokens)
        temperature = try container.decodeIfPresent(Double.self, forKey: .temperature)
        stopSequences = try container.decodeIfPresent([String].self, forKey: .stopSequences)
        modelPreferences = try container.decodeIfPresent(JSONValue.self, forKey: .modelPreferences)
        includeContext = try container.decodeIfPresent(String.self, forKey: .includeContext)
        tools = try container.decodeIfPresent([JSONValue].self, forKey: .tools)
        toolChoice = try container.decodeIfPresent(JSONValue.self, forKey: .toolChoice)
        metadata = try container.decodeIfPresent(JSONValue.self, forKey: .metadata)
    }
}
