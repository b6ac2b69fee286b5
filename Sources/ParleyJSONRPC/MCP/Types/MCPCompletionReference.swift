public import Parley

/// What ``MCPComplete`` completes an argument of: a prompt or a resource template.
public struct MCPCompletionReference: Sendable, Hashable, Encodable {
    /// The reference as sent: `{"type": "ref/prompt", "name": …}` or `{"type": "ref/resource", "uri": …}`.
    public let jsonValue: JSONValue

    private init(_ jsonValue: JSONValue) {
        self.jsonValue = jsonValue
    }

    /// The prompt named `name`.
    public static func prompt(_ name: String) -> MCPCompletionReference {
        MCPCompletionReference(["type": "ref/prompt", "name": .string(name)])
    }

    /// The resource template `uriTemplate` (or a resource's URI).
    public static func resourceTemplate(_ uriTemplate: String) -> MCPCompletionReference {
        MCPCompletionReference(["type": "ref/resource", "uri": .string(uriTemplate)])
    }

    /// Encodes ``jsonValue``.
    public func encode(to encoder: any Encoder) throws {
        try jsonValue.encode(to: encoder)
    }
}
