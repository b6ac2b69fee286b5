public import Parley

/// `resources/templates/list`: one page of the server's resource templates.
public struct MCPListResourceTemplates: JSONRPCMethod {
    /// One page.
    public typealias Result = MCPResourceTemplatePage
    /// `"resources/templates/list"`.
    public static let name = "resources/templates/list"
    /// `{cursor?}`.
    public let params: JSONValue

    /// The page after `cursor`; the first page without one.
    public init(cursor: String? = nil) {
        params = cursor.map { ["cursor": .string($0)] } ?? [:]
    }

    /// `true`: a read.
    public var isRepeatable: Bool { true }
}
