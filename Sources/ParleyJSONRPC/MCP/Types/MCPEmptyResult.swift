/// The result of a call that answers nothing but success (``MCPPing``, ``MCPSetLogLevel``,
/// ``MCPSubscribeResource``, ``MCPUnsubscribeResource``): whatever the server sends is accepted and dropped.
public struct MCPEmptyResult: Sendable, Hashable, Decodable {
    /// An empty result.
    public init() {}

    /// Accepts any result without reading it.
    public init(from decoder: any Decoder) throws {}
}
