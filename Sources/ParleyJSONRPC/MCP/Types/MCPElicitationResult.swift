public import Parley

/// The client's answer to an ``MCPElicitationRequest``: `{"action": …, "content"?: {…}}`.
public struct MCPElicitationResult: Sendable, Hashable, Codable {
    /// What the user did.
    public var action: MCPElicitationAction
    /// What the user entered in the form, by field name; only with ``MCPElicitationAction/accept`` in form mode, left
    /// out of the answer when `nil`.
    public var content: [String: JSONValue]?

    /// An answer with `action` and `content`.
    public init(action: MCPElicitationAction, content: [String: JSONValue]? = nil) {
        self.action = action
        self.content = content
    }

    /// The user accepted: with the form's `content` in form mode, without content in URL mode.
    public static func accept(_ content: [String: JSONValue]? = nil) -> MCPElicitationResult {
        MCPElicitationResult(action: .accept, content: content)
    }

    /// The user declined.
    public static let decline = MCPElicitationResult(action: .decline)

    /// The user dismissed the request.
    public static let cancel = MCPElicitationResult(action: .cancel)
}
