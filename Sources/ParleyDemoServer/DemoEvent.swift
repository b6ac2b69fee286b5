/// Something that can happen while the server runs and that handlers may wait for.
enum DemoEvent: Hashable, Sendable {
    /// The server has started to shut down.
    case stopping
    /// A `/hang` or `/hang-headers` request with this `id` saw its client close the connection.
    case clientClosed(String)
    /// The inbound side of the connection serving the request with this token closed.
    case inboundClosed(Int)
    /// The client closed a `/sse/forever` stream opened with this `key`.
    case streamClosed(String)
}
