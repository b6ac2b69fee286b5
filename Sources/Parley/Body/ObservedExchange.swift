import HTTPTypes
import OpenAPIRuntime

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One request and its answer as an observing middleware (logging, metrics, tracing) sees them, reported once
/// the exchange is over: when `next` failed, or when the response body was read to its end, failed, or was
/// released unread.
///
/// The report waits for the body because the bytes received and a failure mid-body are only known then; a
/// streamed body still streams (the observers count and keep at most a capture limit of bytes as it passes).
struct ObservedExchange: Sendable {
    /// The response head, when one arrived.
    var response: HTTPResponse?
    /// What failed: `next`'s error, or the response body's while it was read.
    var failure: (any Error)?
    /// Whether the response body was released before it was read to its end.
    var bodyDropped = false
    /// From the call of `next` to the end of the exchange.
    var duration: Duration
    /// The request body as the transport took it (every attempt, when attempts run downstream).
    var sent: BodyObserver.Totals
    /// The response body as it was read.
    var received = BodyObserver.Totals()

    /// Calls `next` with `body` watched, and reports the exchange to `onEnd` once it is over. Up to
    /// `captureLimit` first bytes of each body are kept for the report.
    static func observe(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        captureLimit: Int = 0,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?),
        onEnd: @escaping @Sendable (ObservedExchange) -> Void
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let start = ContinuousClock.now
        let sent = BodyObserver(captureLimit: captureLimit)
        let requestBody = body.flatMap { sent.watch($0) }
        let response: HTTPResponse
        let responseBody: HTTPBody?
        do {
            (response, responseBody) = try await next(request, requestBody, baseURL)
        } catch {
            onEnd(ObservedExchange(failure: error, duration: start.duration(to: .now), sent: sent.totals))
            throw error
        }
        let received = BodyObserver(captureLimit: captureLimit) { ending, totals in
            var exchange = ObservedExchange(response: response, duration: start.duration(to: .now), sent: sent.totals)
            exchange.received = totals
            switch ending {
            case .finished: break
            case .failed(let error): exchange.failure = error
            case .dropped: exchange.bodyDropped = true
            }
            onEnd(exchange)
        }
        return (response, received.watch(responseBody))
    }
}
