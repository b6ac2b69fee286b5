/// A channel on which the peer sends messages of its own, unprompted: notifications (and requests, answered by the
/// channel's router). `JSONRPCStreamChannel` (stdio), `JSONRPCWebSocketChannel` and ``MCPStreamableHTTPChannel``
/// are; plain HTTP (``JSONRPCHTTPChannel``) is not.
///
/// A ``JSONRPCClient`` reaches it through its channel's ``JSONRPCChannel/pushChannel``, whatever the channel's type:
///
/// ```swift
/// for await notification in rpc.notifications { print(notification.method) }
/// ```
public protocol JSONRPCPushChannel: JSONRPCChannel {
    /// The peer's notifications that belong to no subscription, in arrival order.
    ///
    /// One stream for the channel, with one consumer: two tasks iterating it share its notifications (each gets
    /// some), they do not each get all.
    var incoming: AsyncStream<JSONRPCIncoming> { get }

    /// Makes sure that what the peer sends unprompted reaches the channel, and returns once it does. A connection
    /// (stdio, WebSocket) carries it from the start: the default does nothing. MCP Streamable HTTP opens the `GET`
    /// stream on which the server sends it (``MCPStreamableHTTPChannel/listen(reconnect:)``).
    func openPushStream() async

    /// Answers the peer's requests for `router`'s methods too, replacing the channel's own handlers of the same names:
    /// how an ``MCPClient`` answers a handshake-era server's `sampling/createMessage`, `elicitation/create` and
    /// `roots/list` with its ``MCPClientHandlers``. The default ignores it (a channel that answers nothing).
    func answerPeerRequests(with router: JSONRPCRouter)
}

extension JSONRPCPushChannel {
    /// Nothing to open: the peer's messages arrive on the connection.
    public func openPushStream() async {}

    /// Answers nothing: ignored.
    public func answerPeerRequests(with router: JSONRPCRouter) {}

    /// This channel.
    public var pushChannel: (any JSONRPCPushChannel)? { self }
}

extension JSONRPCClient {
    /// The peer's notifications that belong to no subscription, on a channel that carries them
    /// (``JSONRPCPushChannel``: stdio, WebSocket, MCP Streamable HTTP); a stream that ends at once on one that does
    /// not (plain HTTP).
    public var notifications: AsyncStream<JSONRPCIncoming> {
        channel.pushChannel?.incoming ?? AsyncStream { $0.finish() }
    }
}
