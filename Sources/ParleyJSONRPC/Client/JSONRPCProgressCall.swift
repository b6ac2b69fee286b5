public import Parley

/// A call under way that reports its progress: the peer's progress notifications as they arrive, and the result.
///
/// ```swift
/// let call = rpc.call(LongTask(), progress: .mcp)
/// for await update in call.progress { print(update.progress ?? 0, "of", update.total ?? 0) }
/// let result = try await call.value
/// ```
///
/// The call starts at once and runs whether or not anybody reads ``progress``, which keeps the newest 256 updates
/// when not read, and ends when the call does (after every update that arrived before the answer). Cancel it with
/// ``cancel()`` or by cancelling the task that awaits ``value``: the peer is told as for any call
/// (``JSONRPCClient/cancellation``).
public struct JSONRPCProgressCall<Value: Sendable>: Sendable {
    /// The progress updates, in arrival order.
    public let progress: AsyncStream<JSONRPCProgressUpdate>
    /// The token the call carries.
    public let token: JSONValue
    let task: Task<Value, any Error>

    init(progress: AsyncStream<JSONRPCProgressUpdate>, token: JSONValue, task: Task<Value, any Error>) {
        self.progress = progress
        self.token = token
        self.task = task
    }

    /// The call's result. Cancelling the awaiting task cancels the call.
    public var value: Value {
        get async throws(ParleyError) {
            try await task.callerValue("The JSON-RPC call")
        }
    }

    /// Cancels the call: ``value`` throws ``/Parley/ParleyError/Kind/cancelled``, and the peer is told.
    public func cancel() {
        task.cancel()
    }
}
