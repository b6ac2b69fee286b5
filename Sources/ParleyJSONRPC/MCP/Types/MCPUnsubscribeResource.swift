public import Parley

/// `resources/unsubscribe`: ends an ``MCPSubscribeResource`` (protocol 2025-11-25 and earlier).
public struct MCPUnsubscribeResource: JSONRPCMethod {
    /// Nothing.
    public typealias Result = MCPEmptyResult
    /// `"resources/unsubscribe"`.
    public static let name = "resources/unsubscribe"
    /// `{uri}`.
    public let params: JSONValue

    /// The end of the subscription to the resource at `uri`.
    public init(uri: String) {
        params = ["uri": .string(uri)]
    }
}
