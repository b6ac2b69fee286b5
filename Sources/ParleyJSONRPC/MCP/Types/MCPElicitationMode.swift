/// How an ``MCPElicitationRequest`` asks the user: by a form, or by sending them to a URL. A mode this library
/// does not know is kept as sent.
public struct MCPElicitationMode: RawRepresentable, Sendable, Hashable, Codable {
    /// The mode as sent, such as `"form"`.
    public var rawValue: String

    /// The mode `rawValue`.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// `"form"`: the client shows a form built from ``MCPElicitationRequest/requestedSchema``.
    public static let form = MCPElicitationMode(rawValue: "form")
    /// `"url"`: the client sends the user to ``MCPElicitationRequest/url``; what they enter there never passes
    /// through the client.
    public static let url = MCPElicitationMode(rawValue: "url")
}
