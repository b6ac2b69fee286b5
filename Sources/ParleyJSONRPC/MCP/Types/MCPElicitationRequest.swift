public import Parley

/// The server's `elicitation/create` request: the params, asking the client to get information from the user.
public struct MCPElicitationRequest: Sendable, Hashable, Decodable {
    /// Form or URL; ``MCPElicitationMode/form`` when the server leaves it out.
    public var mode: MCPElicitationMode
    /// What to tell the user: what is asked, or why they should open the URL.
    public var message: String
    /// The form's schema (a flat JSON Schema object of strings, numbers, booleans and enums), as sent; form mode.
    public var requestedSchema: JSONValue?
    /// The URL to send the user to; URL mode.
    public var url: String?
    /// The server's id of this elicitation, opaque to the client; URL mode, protocol 2025-11-25.
    public var elicitationId: String?

    /// A request, as a test or an in-process server builds one.
    public init(
        mode: MCPElicitationMode = .form,
        message: String,
        requestedSchema: JSONValue? = nil,
        url: String? = nil,
        elicitationId: String? = nil
    ) {
        self.mode = mode
        self.message = message
        self.requestedSchema = requestedSchema
        self.url = url
        self.elicitationId = elicitationId
    }

    private enum CodingKeys: String, CodingKey {
        case mode, message, requestedSchema, url, elicitationId
    }

    /// Decodes the params; a missing `mode` is ``MCPElicitationMode/form``.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        mode = try container.decodeIfPresent(MCPElicitationMode.self, forKey: .mode) ?? .form
        message = try container.decode(String.self, forKey: .message)
        requestedSchema = try container.decodeIfPresent(JSONValue.self, forKey: .requestedSchema)
        url = try container.decodeIfPresent(String.self, forKey: .url)
        elicitationId = try container.decodeIfPresent(String.self, forKey: .elicitationId)
    }
}
