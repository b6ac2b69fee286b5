import Parley

/// The changes a server announces, as an `AsyncSequence` (``MCPClient/subscribe(resources:listChanges:)``): resource
/// updates and list changes, in arrival order. It ends when the server ends the subscription or the channel closes,
/// and stops when the consumer does or ``cancel()`` is called (the server is told: the stateless era's
/// `subscriptions/listen` is cancelled, the handshake era's `resources/unsubscribe` sent).
public struct MCPSubscription: AsyncSequence, Sendable {
    /// Each element is one change.
    public typealias Element = MCPUpdate
    /// A subscription fails with a `ParleyError`.
    public typealias Failure = any Error

    let stream: AsyncThrowingStream<MCPUpdate, any Error>
    let task: Task<Void, Never>

    /// Iterates the changes.
    public func makeAsyncIterator() -> AsyncThrowingStream<MCPUpdate, any Error>.AsyncIterator {
        stream.makeAsyncIterator()
    }

    /// Ends the subscription.
    public func cancel() {
        task.cancel()
    }
}
