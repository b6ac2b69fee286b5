public import Parley

/// `prompts/list`: one page of the server's prompts.
public struct MCPListPrompts: JSONRPCMethod {
    /// One page.
    public typealias Result = MCPPromptPage
    /// `"prompts/list"`.
    public static let name = "prompts/list"
    /// `{cursor?}`.
    public let params: JSONValue

    /// The page after `cursor`; the first page without one.
    public init(cursor: String? = nil) {
        params = cursor.map { ["cursor": .string($0)] } ?? [:]
    }

    /// `true`: a read.
    public var isRepeatable: Bool { true }
}
