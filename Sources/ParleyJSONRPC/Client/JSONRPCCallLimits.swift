/// The time limits of one JSON-RPC call: a ``total``, which no progress extends, and an ``idle`` limit, which each of
/// the peer's progress notifications restarts.
///
/// ```swift
/// let limits = JSONRPCCallLimits(total: .seconds(300), idle: .seconds(10))
/// let call = rpc.call(MCPCallTool(name: "index"), progress: .mcp, limits: limits)
/// let result = try await call.value   // fails after 10 s without progress, and after 300 s in any case
/// ```
///
/// For a call with progress (``JSONRPCClient/call(_:progress:limits:)``) the idle clock starts when the call is sent
/// and starts again at each progress notification for the call's token: a peer that keeps reporting may work as long
/// as the total allows, and one that goes quiet is given up after `idle`. A call without a progress token
/// (``JSONRPCClient/call(_:limits:)``) has nothing that restarts the idle clock: its idle limit counts from the send,
/// like a second total, and the smaller of the two decides.
///
/// When a limit passes, the call fails with ``/Parley/ParleyError/Kind/timeout``, whose message names the limit, and
/// the peer is told as for any call that times out (``JSONRPCClient/cancellation``). Each attempt of a retried call
/// (``JSONRPCClient/retry``) starts its idle clock afresh; the total spans them all, and no attempt starts once the
/// total would pass during the wait before it.
public struct JSONRPCCallLimits: Sendable, Hashable {
    /// The longest the call may take, counted from its start, however much progress the peer reports; `nil` for the
    /// client's ``JSONRPCClient/timeout``.
    public var total: Duration?
    /// The longest the call may go without its answer or a progress notification for its token; `nil` for no such
    /// limit.
    public var idle: Duration?

    /// Limits of a call: `total` from its start (`nil`: the client's ``JSONRPCClient/timeout``), `idle` between
    /// progress notifications (`nil`: none).
    public init(total: Duration? = nil, idle: Duration? = nil) {
        self.total = total
        self.idle = idle
    }
}
