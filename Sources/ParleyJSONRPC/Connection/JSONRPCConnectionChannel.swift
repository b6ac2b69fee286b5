package import Parley

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// What the connection-oriented channels (byte streams, WebSocket, MCP Streamable HTTP) share: a
/// ``JSONRPCConnection``, and the facade over it. Their public members are one-line forwards to these (a public
/// requirement needs a public witness on each type).
package protocol JSONRPCConnectionChannel: JSONRPCPushChannel {
    /// The connection this channel carries.
    var connection: JSONRPCConnection { get }
}

extension JSONRPCConnectionChannel {
    /// Sends `message` on the connection; waits for the answer to `ids` when there are any.
    package func exchangeOnConnection(_ message: Data, ids: [JSONRPCID]) async throws(ParleyError) -> JSONRPCReply? {
        try await connection.calls.exchange(message, ids: ids)
    }

    /// The peer's notifications that `matcher` accepts for `key`.
    package func watchOnConnection(
        _ matcher: JSONRPCSubscriptionMatcher,
        key: JSONValue
    ) throws(ParleyError) -> JSONRPCSubscription? {
        try connection.subscriptions.watch(matcher, key: key)
    }

    /// Subscribes with `method` on this channel: its result is the subscription's key; `unsubscribe` (if any) is
    /// called with the key as its one positional parameter when the subscription ends.
    package func subscribeOnConnection<Method: JSONRPCMethod>(
        _ method: Method,
        notifications matcher: JSONRPCSubscriptionMatcher,
        unsubscribe: String?,
        backfill: JSONRPCBackfill?
    ) async throws(ParleyError) -> JSONRPCSubscription {
        // UUID ids: the channel's own calls can never collide with the ids of the user's clients.
        let rpc = JSONRPCClient(channel: self, ids: JSONRPCUUIDIDs())
        let call = ResultAsJSON(base: method)
        return try await connection.subscriptions.subscribe(
            { () throws(ParleyError) in try await rpc.call(call) },
            notifications: matcher,
            // Best effort: a failed unsubscribe leaves nothing to do on our side.
            unsubscribe: { key in
                if let unsubscribe { _ = try? await rpc.call(JSONRPCDynamicMethod(unsubscribe, params: .array([key]))) }
            },
            backfill: backfill
        )
    }
}

/// A method whose result is read as JSON, whatever its declared type: a subscription's key.
private struct ResultAsJSON<Base: JSONRPCMethod>: JSONRPCMethod {
    typealias Result = JSONValue
    typealias Params = Base.Params
    static var name: String { Base.name }
    let base: Base
    var methodName: String { base.methodName }
    var params: Base.Params { base.params }
}
