public import Parley

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Carries encoded JSON-RPC messages to a peer and brings back its answers: HTTP (``JSONRPCHTTPChannel``), or any
/// transport of yours.
public protocol JSONRPCChannel: Sendable {
    /// Sends one message: a request, a notification or a batch.
    ///
    /// - Parameters:
    ///   - message: The encoded message.
    ///   - ids: The ids the message waits answers for; empty when it holds only notifications.
    /// - Returns: The peer's answer when `ids` is not empty; `nil` once sent when it is.
    func exchange(_ message: Data, ids: [JSONRPCID]) async throws(ParleyError) -> JSONRPCReply?

    /// Sends one message described by `exchange` (its methods, ids, and whether it may be repeated), so that the
    /// channel can name and treat it by method: ``JSONRPCHTTPChannel`` names the request after the method (logs, metrics,
    /// spans) and lets retries repeat it when every call in it is repeatable. The default sends it with
    /// ``exchange(_:ids:)``.
    func exchange(_ message: Data, describing exchange: JSONRPCExchange) async throws(ParleyError) -> JSONRPCReply?

    /// The peer's notifications that `matcher` accepts for `key`, from now until the returned subscription is
    /// cancelled (or its consumer stops); they no longer reach the channel's other consumers. Calls with progress
    /// (``JSONRPCClient/call(_:progress:timeout:)``) watch their token this way.
    ///
    /// - Returns: `nil` when the channel carries no notifications from the peer (plain HTTP); the default.
    func watch(_ matcher: JSONRPCSubscriptionMatcher, key: JSONValue) throws(ParleyError) -> JSONRPCSubscription?

    /// This channel as one on which the peer sends notifications of its own (``JSONRPCPushChannel``), so that a
    /// client reaches them whatever the channel's type; `nil` when it carries none (the default).
    var pushChannel: (any JSONRPCPushChannel)? { get }
}

extension JSONRPCChannel {
    /// ``exchange(_:ids:)`` with the exchange's ids.
    public func exchange(_ message: Data, describing exchange: JSONRPCExchange) async throws(ParleyError) -> JSONRPCReply? {
        try await self.exchange(message, ids: exchange.ids)
    }

    /// No notifications: `nil`.
    public func watch(_ matcher: JSONRPCSubscriptionMatcher, key: JSONValue) throws(ParleyError) -> JSONRPCSubscription? {
        nil
    }

    /// No notifications of the peer's own: `nil`.
    public var pushChannel: (any JSONRPCPushChannel)? { nil }
}
