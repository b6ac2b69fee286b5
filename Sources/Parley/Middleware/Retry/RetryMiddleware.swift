public import HTTPTypes
public import OpenAPIRuntime

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Sends a request again when an attempt fails in a way worth retrying: a connection failure or timeout
/// (``ParleyError/Kind/transport``, ``ParleyError/Kind/timeout``), or a retryable status (408, 429, 500, 502,
/// 503, 504 by default).
///
/// ```swift
/// let client = Client(baseURL: url, transport: transport, middlewares: [.retry(maxAttempts: 4)])
/// ```
///
/// - Only idempotent requests are retried (GET, HEAD, PUT, DELETE, OPTIONS, TRACE, or an endpoint whose
///   ``Endpoint/isIdempotent`` is `true`), unless ``RetryPolicy/retriesNonIdempotentRequests``.
/// - Only a replayable body is sent again (`HTTPBody.iterationBehavior == .multiple`: bytes, JSON, forms,
///   files); a request with a one-shot stream body is sent once.
/// - Waits are exponential backoff with full jitter, or the server's `Retry-After` (seconds or HTTP-date) up to
///   ``RetryPolicy/maxRetryAfter``; no wait or attempt runs past ``RetryPolicy/deadline``.
/// - Cancelling the call stops it at once: no retry after cancellation.
/// - Each retry takes a token from the ``RetryBudget``, so retries add a bounded share of load.
/// - Downstream middlewares see ``CallContext/attempt`` (1, 2, …), and `onRetry` hears of every retry.
///
/// When the attempts run out, the last response is returned (and validated as usual) or the last error thrown,
/// its ``ParleyError/attempts`` saying how many attempts were made.
public struct RetryMiddleware: ClientMiddleware {
    /// When and how often to retry.
    public let policy: RetryPolicy
    /// The budget retries draw from.
    public let budget: RetryBudget
    /// Called before each retry's wait, for logs and metrics.
    public let onRetry: (@Sendable (RetryEvent) -> Void)?

    /// A retry middleware with `policy`, drawing on `budget` (by default one of its own).
    public init(
        _ policy: RetryPolicy = RetryPolicy(),
        budget: RetryBudget = RetryBudget(),
        onRetry: (@Sendable (RetryEvent) -> Void)? = nil
    ) {
        self.policy = policy
        self.budget = budget
        self.onRetry = onRetry
    }

    /// Runs the attempts.
    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let context =
            CallContext.current
            ?? CallContext(endpointName: operationID, isIdempotent: CallContext.isIdempotent(request.method))
        let replayable = body.map { $0.iterationBehavior == .multiple } ?? true
        let retryable = replayable && (context.isIdempotent || policy.retriesNonIdempotentRequests)
        budget.deposit()
        let clock = ContinuousClock()
        let start = clock.now
        var attempt = 1
        while true {
            var current = context
            current.attempt = attempt
            let outcome = await Self.attempt(current, timeout: policy.attemptTimeout) {
                try await next(request, body, baseURL)
            }
            guard retryable, attempt < policy.maxAttempts, !Task.isCancelled,
                let (delay, fromServer) = wait(after: outcome, retry: attempt),
                policy.deadline.map({ start.duration(to: clock.now) + delay < $0 }) ?? true,
                budget.withdraw()
            else {
                return try Self.finish(outcome, attempts: attempt)
            }
            if case .success(let (response, responseBody)) = outcome {
                onRetry?(
                    RetryEvent(
                        endpoint: context.endpointName,
                        failedAttempt: attempt,
                        status: response.status.code,
                        delay: delay,
                        delayFromRetryAfter: fromServer
                    )
                )
                await UnusedBody.drain(responseBody)
            } else if case .failure(let error) = outcome {
                onRetry?(
                    RetryEvent(
                        endpoint: context.endpointName,
                        failedAttempt: attempt,
                        error: error,
                        delay: delay,
                        delayFromRetryAfter: false
                    )
                )
            }
            do {
                try await Task.sleep(for: delay)
            } catch {
                throw ParleyError(.cancelled, "The call was cancelled while waiting to retry after attempt \(attempt).")
            }
            attempt += 1
        }
    }

    /// The wait before the next attempt, and whether the server chose it; `nil` when `outcome` is not retried.
    private func wait(
        after outcome: Result<(HTTPResponse, HTTPBody?), ParleyError>,
        retry: Int
    ) -> (Duration, Bool)? {
        switch outcome {
        case .success(let (response, _)):
            guard policy.retryableStatusCodes.contains(response.status.code) else { return nil }
            if let field = response.headerFields[.retryAfter], let asked = RetryAfter.delay(field) {
                return asked <= policy.maxRetryAfter ? (asked, true) : nil
            }
            return (policy.backoff(beforeRetry: retry), false)
        case .failure(let error):
            guard error.kind == .transport || error.kind == .timeout else { return nil }
            return (policy.backoff(beforeRetry: retry), false)
        }
    }

    /// One attempt with `context` as ``CallContext/current``, bounded by `timeout`.
    private static func attempt(
        _ context: CallContext,
        timeout: Duration?,
        _ send: @Sendable () async throws -> (HTTPResponse, HTTPBody?)
    ) async -> Result<(HTTPResponse, HTTPBody?), ParleyError> {
        do {
            return .success(
                try await CallContext.binding(context) {
                    guard let timeout else { return try await send() }
                    // ``Deadline`` awaits `send` after cancelling it, so `send` does not outlive this call.
                    return try await withoutActuallyEscaping(send) { send in
                        try await Deadline.run(
                            within: timeout,
                            expired: {
                                ParleyError(
                                    .timeout,
                                    "Attempt \(context.attempt) did not receive a response head within the retry policy's "
                                        + "attemptTimeout of \(timeout)."
                                )
                            },
                            send
                        )
                    }
                }
            )
        } catch {
            return .failure(
                ParleyError.wrapping(error, as: .middleware, "A middleware after RetryMiddleware failed: \(error)")
            )
        }
    }

    /// The last outcome, its error saying how many attempts were made (``ParleyError/attempts``).
    private static func finish(
        _ outcome: Result<(HTTPResponse, HTTPBody?), ParleyError>,
        attempts: Int
    ) throws(ParleyError) -> (HTTPResponse, HTTPBody?) {
        switch outcome {
        case .success(let value):
            return value
        case .failure(var error):
            if attempts > 1 { error.attempts = attempts }
            throw error
        }
    }
}

extension ClientMiddleware where Self == RetryMiddleware {
    /// A ``RetryMiddleware``: `.retry()`, `.retry(maxAttempts: 5)`, `.retry(RetryPolicy(…), budget: shared)`.
    public static func retry(
        _ policy: RetryPolicy = RetryPolicy(),
        budget: RetryBudget = RetryBudget(),
        onRetry: (@Sendable (RetryEvent) -> Void)? = nil
    ) -> RetryMiddleware {
        RetryMiddleware(policy, budget: budget, onRetry: onRetry)
    }

    /// A ``RetryMiddleware`` with the default policy but `maxAttempts` attempts.
    public static func retry(maxAttempts: Int) -> RetryMiddleware {
        RetryMiddleware(RetryPolicy(maxAttempts: maxAttempts))
    }
}
