public import Parley

/// `resources/read`: the contents of a resource.
public struct MCPReadResource: JSONRPCMethod {
    /// The contents.
    public typealias Result = MCPReadResourceResult
    /// `"resources/read"`.
    public static let name = "resources/read"
    /// `{uri}`.
    public let params: JSONValue

    /// A read of the resource at `uri`.
    public init(uri: String) {
        params = ["uri": .string(uri)]
    }

    /// `true`: a read.
    public var isRepeatable: Bool { true }
}
