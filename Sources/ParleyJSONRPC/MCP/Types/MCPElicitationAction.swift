/// What the user did with an ``MCPElicitationRequest``. An action this library does not know is kept as sent.
public struct MCPElicitationAction: RawRepresentable, Sendable, Hashable, Codable {
    /// The action as sent, such as `"accept"`.
    public var rawValue: String

    /// The action `rawValue`.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// `"accept"`: the user submitted the form or agreed to open the URL.
    public static let accept = MCPElicitationAction(rawValue: "accept")
    /// `"decline"`: the user said no.
    public static let decline = MCPElicitationAction(rawValue: "decline")
    /// `"cancel"`: the user dismissed the request without choosing.
    public static let cancel = MCPElicitationAction(rawValue: "cancel")
}
