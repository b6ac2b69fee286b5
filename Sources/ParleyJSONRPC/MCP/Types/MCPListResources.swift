public import Parley

/// `resources/list`: one page of the server's resources.
public struct MCPListResources: JSONRPCMethod {
    /// One page.
    public typealias Result = MCPResourcePage
    /// `"resources/list"`.
    public static let name = "resources/list"
    /// `{cursor?}`.
    public let params: JSONValue

    /// The page after `cursor`; the first page without one.
    public init(cursor: String? = nil) {
        params = cursor.map { ["cursor": .string($0)] } ?? [:]
    }

    /// `true`: a read.
    public var isRepeatable: Bool { true }
}
