public import Parley

/// `tools/list`: one page of the server's tools.
public struct MCPListTools: JSONRPCMethod {
    /// One page.
    public typealias Result = MCPToolPage
    /// `"tools/list"`.
    public static let name = "tools/list"
    /// `{cursor?}`.
    public let params: JSONValue

    /// The page after `cursor`; the first page without one.
    public init(cursor: String? = nil) {
        params = cursor.map { ["cursor": .string($0)] } ?? [:]
    }

    /// `true`: a read.
    public var isRepeatable: Bool { true }
}
