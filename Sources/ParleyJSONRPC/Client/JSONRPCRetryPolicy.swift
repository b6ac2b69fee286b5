public import Parley

/// When a ``JSONRPCClient`` sends a repeatable call again (``JSONRPCMethod/isRepeatable``): on the error codes a
/// node answers when it is busy or rate-limited (`-32005` "limit exceeded" of EIP-1474 by default), and on a broken
/// connection. A batch sends again only its failed repeatable calls, as a smaller batch.
///
/// ```swift
/// let rpc = JSONRPCClient(http: client, retry: JSONRPCRetryPolicy(maxAttempts: 4, retryableCodes: [-32005, -32603]))
/// let balance = try await rpc.call(GetBalance(address: address))    // isRepeatable: true
/// ```
///
/// This is the JSON-RPC layer's retry, on every channel. Over HTTP, the client's ``/Parley/RetryMiddleware`` also
/// repeats a request whose calls are all repeatable on a retryable status (429, 503 …) or a failed connection.
public struct JSONRPCRetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first included.
    public var maxAttempts: Int
    /// The error codes worth another attempt.
    public var retryableCodes: Set<Int>
    /// Whether a transport failure (the connection broke, the channel closed) is worth another attempt.
    public var retriesTransportFailures: Bool
    /// The waits between attempts: exponential with full jitter (its `maxAttempts` is not used).
    public var backoff: JSONRPCReconnectPolicy

    /// A policy: 3 attempts, on `-32005` and broken connections, waiting up to 0.1 s, 0.2 s … (at most 5 s).
    public init(
        maxAttempts: Int = 3,
        retryableCodes: Set<Int> = [-32005],
        retriesTransportFailures: Bool = true,
        backoff: JSONRPCReconnectPolicy = JSONRPCReconnectPolicy(initialDelay: .milliseconds(100), maxDelay: .seconds(5))
    ) {
        self.maxAttempts = max(maxAttempts, 1)
        self.retryableCodes = retryableCodes
        self.retriesTransportFailures = retriesTransportFailures
        self.backoff = backoff
    }

    /// Whether `error` is worth another attempt.
    public func isRetryable(_ error: ParleyError) -> Bool {
        if error.kind == .jsonRPCError, let code = error.jsonRPCError?.code { return retryableCodes.contains(code) }
        return retriesTransportFailures && error.kind == .transport
    }
}
