public import Parley

/// A tool the server offers.
///
/// Its schemas, icons and annotations are kept as sent: nothing is resolved (`$ref` stays a reference) or checked.
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
    /// Icons for a user interface (`{src, mimeType?, sizes?, theme?}`), as sent.
    public var icons: [JSONValue]?
    /// Hints about its behaviour (`title`, `readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`), as
    /// sent; hints only, not to be trusted from an untrusted server.
    public var annotations: JSONValue?
    /// How it may run (`{"taskSupport": "forbidden" | "optional" | "required"}`, protocol 2025-11-25), as sent.
    public var execution: JSONValue?
    /// The `_meta` member, as sent.
    public var meta: JSONValue?

    private enum CodingKeys: String, CodingKey {
        case name, title, description, inputSchema, outputSchema, icons, annotations, execution
        case meta = "_meta"
    }
}
