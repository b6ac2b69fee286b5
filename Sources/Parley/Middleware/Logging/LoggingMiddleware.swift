public import HTTPTypes
public import Logging
public import OpenAPIRuntime

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Logs each request with swift-log: method, URL without secrets, status, duration, attempt and bytes, under a
/// request id in the logger's metadata (`parley.request_id`).
///
/// ```swift
/// let client = Client(baseURL: url, middlewares: [.logging(Logger(label: "api"))])
/// // info: GET https://api.example.com/users?api_key=<redacted> → 200 OK in 12.4 ms (attempt 1, sent 0 B, received 431 B)
/// ```
///
/// **One line per exchange, when it is over.** The line is written when the response body has been read to its
/// end (or failed while read, or was released unread), because only then are the bytes received and a failure
/// mid-body known; a streamed body still streams. It is logged at ``level``, or at ``failureLevel`` when the
/// exchange failed (an error from downstream or from the body) or the status is 5xx. At `.debug` and below, a
/// line is also written when the request is sent, with the request's header fields, and the line at the end
/// carries the response's; at `.trace`, the end line also carries the first ``bodyLimit`` bytes of each body
/// (kept as they pass, since the request body is only read while it is sent; bodies are logged as they are:
/// trace logs may show personal data).
///
/// **Secrets.** In URLs the user info and the values of the query items named in ``redactedQueryItems`` are
/// replaced by `<redacted>`; the values of the header fields in ``redactedHeaders`` (always
/// ``SensitiveFields/defaultHeaderFields``: `Authorization`, `Cookie`, `Set-Cookie`, `Proxy-Authorization`,
/// `X-API-Key`, `X-Auth-Token`, …) are too, and those secrets are scrubbed out of logged errors. So are those of
/// ``SensitiveFields/current``: in a `Client`, its ``Client/Configuration/sensitiveFields``, and whatever header field
/// or query item Parley's auth middlewares (``APIKeyMiddleware``, ``BearerAuthMiddleware``, ``BasicAuthMiddleware``)
/// added, under any name.
///
/// **Metadata keys.** `parley.request_id`, `parley.endpoint`, `parley.attempt`, `http.request.method`,
/// `url.full`, `http.response.status_code`, `parley.duration_ms`, `parley.bytes_sent`, `parley.bytes_received`,
/// `parley.error_kind` (the ``ParleyError/Kind`` label), `parley.body_dropped`, `parley.cache` (what a client's
/// ``HTTPCache`` did: `hit`, `miss`, `revalidated`, `stale`, also at the end of the line); at debug `http.request.headers`,
/// `http.request.curl` (the request as a ``CurlCommand``, secrets redacted, without its body) and
/// `http.response.headers`; at trace `http.request.body` and `http.response.body`. Placed among the client's request
/// middlewares, the middleware sees each request as it is sent (after the other middlewares, every redirect hop).
///
/// **Placement.** Before `.retry()` it logs the call once (its bytes sent count every attempt); after `.retry()`
/// it logs each attempt, with its ``CallContext/attempt``. The request id is made per pass through the
/// middleware; set ``requestIDHeader`` to also send it (a request already carrying that field keeps its value,
/// which is then the id).
public struct LoggingMiddleware: ClientMiddleware {
    /// The header fields whose values are never logged: ``SensitiveFields/defaultHeaderFields``.
    public static let alwaysRedactedHeaders: Set<HTTPField.Name> = SensitiveFields.defaultHeaderFields
    /// Query items whose values are redacted by default (compared without regard to case):
    /// ``SensitiveFields/defaultQueryItems``.
    public static let defaultRedactedQueryItems: Set<String> = SensitiveFields.defaultQueryItems

    /// Where the lines go.
    public let logger: Logger
    /// The level of a completed exchange.
    public let level: Logger.Level
    /// The level of a failed exchange (an error, or a 5xx status).
    public let failureLevel: Logger.Level
    /// Query items whose values are replaced by `<redacted>`, lowercased.
    public let redactedQueryItems: Set<String>
    /// Header fields whose values are replaced by `<redacted>`: ``alwaysRedactedHeaders`` and those configured.
    public let redactedHeaders: Set<HTTPField.Name>
    /// How many bytes of each body are logged at `.trace`.
    public let bodyLimit: Int
    /// A header field to send the request id in, if any (such as `X-Request-ID`).
    public let requestIDHeader: HTTPField.Name?
    /// ``redactedHeaders`` and ``redactedQueryItems`` as one list. Each request is logged with these redacted, and
    /// with what ``SensitiveFields/current`` says is secret (in a `Client`, its ``Client/Configuration/sensitiveFields``;
    /// the credentials Parley's auth middlewares added).
    public var sensitiveFields: SensitiveFields { SensitiveFields(headerFields: redactedHeaders, queryItems: redactedQueryItems) }

    /// A logging middleware writing to `logger`.
    ///
    /// - Parameters:
    ///   - logger: the logger; its level decides what is logged (headers at `.debug`, bodies at `.trace`).
    ///   - level: the level of a completed exchange.
    ///   - failureLevel: the level of a failed exchange (an error, or a 5xx status).
    ///   - redactedQueryItems: query items whose values are never logged.
    ///   - redactedHeaders: header fields whose values are never logged, besides ``alwaysRedactedHeaders``.
    ///   - bodyLimit: how many bytes of each body are logged at `.trace`.
    ///   - requestIDHeader: a header field to send the request id in, if any.
    public init(
        logger: Logger,
        level: Logger.Level = .info,
        failureLevel: Logger.Level = .warning,
        redactedQueryItems: Set<String> = Self.defaultRedactedQueryItems,
        redactedHeaders: Set<HTTPField.Name> = [],
        bodyLimit: Int = 1024,
        requestIDHeader: HTTPField.Name? = nil
    ) {
        self.logger = logger
        self.level = level
        self.failureLevel = failureLevel
        self.redactedQueryItems = Set(redactedQueryItems.map { $0.lowercased() })
        self.redactedHeaders = Self.alwaysRedactedHeaders.union(redactedHeaders)
        self.bodyLimit = max(0, bodyLimit)
        self.requestIDHeader = requestIDHeader
    }

    /// Logs the exchange.
    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        var id = UUID().uuidString.lowercased()
        if let requestIDHeader {
            if let sent = request.headerFields[requestIDHeader] { id = sent } else { request.headerFields[requestIDHeader] = id }
        }
        guard logger.logLevel <= min(level, failureLevel) else { return try await next(request, body, baseURL) }
        var tagged = self.logger
        tagged[metadataKey: "parley.request_id"] = .string(id)
        let logger = tagged
        let line = LogLine(
            middleware: self,
            request: request,
            url: RequestTarget.of(request, baseURL: baseURL),
            endpoint: CallContext.current?.endpointName ?? operationID,
            attempt: CallContext.current?.attempt ?? 1
        )
        if logger.logLevel <= .debug {
            logger.debug("\(line.sending)", metadata: line.requestMetadata(detailed: true))
        }
        let capture = logger.logLevel <= .trace ? bodyLimit : 0
        return try await ObservedExchange.observe(request, body: body, baseURL: baseURL, captureLimit: capture, next: next) {
            exchange in
            line.log(exchange, to: logger)
        }
    }
}

extension LoggingMiddleware: CallOutcomeObserver {
    /// Logs, at ``failureLevel``, a call whose response came back through the middleware but that failed above
    /// it: a status the endpoint does not accept, a body that does not decode, a validator that rejects it.
    public func callFailedAfterChain(_ error: ParleyError, request: HTTPRequest, endpoint: String) {
        guard logger.logLevel <= failureLevel else { return }
        LogLine(middleware: self, request: request, url: RequestTarget(request, baseURL: nil), endpoint: endpoint, attempt: nil)
            .logFailureAfterChain(error, to: logger)
    }
}

extension ClientMiddleware where Self == LoggingMiddleware {
    /// A ``LoggingMiddleware``: `.logging(logger)`, `.logging(logger, level: .debug, redactedQueryItems: ["sig"])`.
    public static func logging(
        _ logger: Logger,
        level: Logger.Level = .info,
        failureLevel: Logger.Level = .warning,
        redactedQueryItems: Set<String> = LoggingMiddleware.defaultRedactedQueryItems,
        redactedHeaders: Set<HTTPField.Name> = [],
        bodyLimit: Int = 1024,
        requestIDHeader: HTTPField.Name? = nil
    ) -> LoggingMiddleware {
        LoggingMiddleware(
            logger: logger,
            level: level,
            failureLevel: failureLevel,
            redactedQueryItems: redactedQueryItems,
            redactedHeaders: redactedHeaders,
            bodyLimit: bodyLimit,
            requestIDHeader: requestIDHeader
        )
    }
}
