public import Parley

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Which of the peer's notifications belong to a subscription, given what the subscribe call answered.
///
/// ```swift
/// // eth_subscribe: {"method": "eth_subscription", "params": {"subscription": "0x9c…", "result": {…}}}
/// let heads: JSONRPCSubscriptionMatcher = .parameter("subscription", of: "eth_subscription")
/// // every notification of one method, whatever its parameters
/// let ticks: JSONRPCSubscriptionMatcher = .method("tick")
/// ```
public struct JSONRPCSubscriptionMatcher: Sendable {
    /// The notification method this subscription receives.
    public let method: String
    private let belongs: @Sendable (_ notification: JSONRPCIncoming, _ subscription: JSONValue) -> Bool

    /// Notifications of `method` for which `belongs` says yes; `subscription` is the subscribe call's result.
    public init(method: String, belongs: @escaping @Sendable (_ notification: JSONRPCIncoming, _ subscription: JSONValue) -> Bool)
    {
        self.method = method
        self.belongs = belongs
    }

    /// Every notification of `method`.
    public static func method(_ method: String) -> Self {
        Self(method: method) { _, _ in true }
    }

    /// Notifications of `method` whose named parameter `name` equals the subscribe call's result (the
    /// subscription id), as in `eth_subscribe` (`.parameter("subscription", of: "eth_subscription")`).
    public static func parameter(_ name: String, of method: String) -> Self {
        Self(method: method) { notification, subscription in notification.params?[name] == subscription }
    }

    func matches(_ notification: JSONRPCIncoming, subscription: JSONValue) -> Bool {
        notification.method == method && belongs(notification, subscription)
    }
}

/// A subscription's notifications, in arrival order, as an `AsyncSequence`.
///
/// On a channel that reconnects (``JSONRPCReconnectPolicy``), the sequence continues across a drop: the
/// subscribe call is issued again on the new connection and its notifications arrive here. It ends when the
/// consumer stops iterating (then the channel sends the unsubscribe call, if one was given), and throws
/// ``/Parley/ParleyError/Kind/transport`` when the channel closes for good, or the peer's error when subscribing
/// again is refused. ``cancel()`` ends it and waits for the unsubscribe call.
public struct JSONRPCSubscription: AsyncSequence, Sendable {
    /// Each element is one notification of the subscription.
    public typealias Element = JSONRPCIncoming
    /// A subscription fails with a `ParleyError`.
    public typealias Failure = ParleyError

    let stream: AsyncThrowingStream<JSONRPCIncoming, any Error>
    let end: @Sendable () async -> Void
    let currentKey: @Sendable () -> JSONValue?

    package init(
        stream: AsyncThrowingStream<JSONRPCIncoming, any Error>,
        key: @escaping @Sendable () -> JSONValue? = { nil },
        end: @escaping @Sendable () async -> Void
    ) {
        self.stream = stream
        self.currentKey = key
        self.end = end
    }

    /// The subscription's key as the peer knows it: the subscribe call's result (such as `eth_subscribe`'s id), or the
    /// watched token. `nil` while it is being subscribed again after a reconnect, and once it ended.
    public var key: JSONValue? { currentKey() }

    /// Ends the subscription: the sequence finishes, and the unsubscribe call (if the channel was given one)
    /// has been answered when this returns. Stopping the iteration also ends it, without waiting.
    public func cancel() async {
        await end()
    }

    /// Iterates the notifications.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: stream.makeAsyncIterator())
    }

    /// Iterates the notifications.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<JSONRPCIncoming, any Error>.AsyncIterator

        /// The next notification; `nil` once the subscription ended.
        public mutating func next() async throws(ParleyError) -> JSONRPCIncoming? {
            try await next(isolation: nil)
        }

        /// The next notification; `nil` once the subscription ended.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(ParleyError) -> JSONRPCIncoming? {
            do {
                return try await base.next(isolation: actor)
            } catch {
                throw ParleyError.wrapping(error, as: .transport, "The JSON-RPC subscription failed: \(error)")
            }
        }
    }
}

extension JSONRPCIncoming {
    /// Decodes the parameters (or the member `key` of named parameters, such as `"result"` in an
    /// `eth_subscription` notification) as `T`.
    ///
    /// - Throws: ``/Parley/ParleyError/Kind/decoding`` naming the coding path when they do not decode as `T`.
    public func decodeParams<T: Decodable>(
        as type: T.Type = T.self,
        at key: String? = nil,
        decoder: JSONDecoder = JSONDecoder()
    ) throws(ParleyError) -> T {
        let value: JSONValue? = if let key { params?[key] } else { params }
        do {
            return try decoder.decode(T.self, from: JSONEncoder().encode(value ?? .null))
        } catch {
            let detail = JSONRPCCoding.describeDecodingFailure(error, under: key.map { "params.\($0)" } ?? "params")
            throw ParleyError(
                .decoding,
                "The notification \(method) could not be decoded as \(T.self): \(detail).",
                underlying: error
            )
        }
    }
}

/// Fetches the notifications a subscription missed while its connection was down, given the last one it received
/// (`nil` when none had come yet): its cursor, such as a block number. The notifications it returns are handed to the
/// subscription, in order, before the new ones.
public typealias JSONRPCBackfill = @Sendable (_ last: JSONRPCIncoming?) async throws(ParleyError) -> [JSONRPCIncoming]
