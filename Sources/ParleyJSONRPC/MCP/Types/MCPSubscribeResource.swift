public import Parley

/// `resources/subscribe`: asks for `notifications/resources/updated` when a resource changes (protocol 2025-11-25
/// and earlier; 2026-07-28 subscribes through `subscriptions/listen`).
public struct MCPSubscribeResource: JSONRPCMethod {
    /// Nothing.
    public typealias Result = MCPEmptyResult
    /// `"resources/subscribe"`.
    public static let name = "resources/subscribe"
    /// `{uri}`.
    public let params: JSONValue

    /// A subscription to the resource at `uri`.
    public init(uri: String) {
        params = ["uri": .string(uri)]
    }
}
