import HTTPTypes
import Logging

/// The lines ``LoggingMiddleware`` writes about one request: its message texts and metadata, secrets redacted.
struct LogLine: Sendable {
    /// The middleware's settings.
    let middleware: LoggingMiddleware
    /// The request as sent on.
    let request: HTTPRequest
    /// Its URL.
    let url: RequestTarget
    /// The endpoint's name, or the operation ID outside a `Client`.
    let endpoint: String
    /// The attempt number (`nil` for a line about the whole call).
    let attempt: Int?
    /// What is secret: the middleware's names, the client's, and the credentials the auth middlewares added.
    let sensitive: SensitiveFields

    init(middleware: LoggingMiddleware, request: HTTPRequest, url: RequestTarget, endpoint: String, attempt: Int?) {
        self.middleware = middleware
        self.request = request
        self.url = url
        self.endpoint = endpoint
        self.attempt = attempt
        sensitive = SensitiveFields.current.union(middleware.sensitiveFields)
    }

    private var redactedURL: String {
        url.redacted(queryItems: sensitive.queryItems, placeholder: Redaction.placeholder)
    }

    /// The message of the line written when the request is sent.
    var sending: String { "→ \(request.method.rawValue) \(redactedURL)" }

    /// The request's metadata, with its header fields when `detailed`.
    func requestMetadata(detailed: Bool) -> Logger.Metadata {
        var metadata: Logger.Metadata = [
            "parley.endpoint": .string(endpoint),
            "http.request.method": .string(request.method.rawValue),
            "url.full": .string(redactedURL),
        ]
        if let attempt { metadata["parley.attempt"] = .stringConvertible(attempt) }
        if detailed {
            metadata["http.request.headers"] = headers(request.headerFields)
            // The request as a curl command line, secrets redacted (CurlCommand); the body stays out.
            let curl = CurlCommand(request, url: redactedURL, secretFields: sensitive.headerFields)
            metadata["http.request.curl"] = .string(curl.description)
        }
        return metadata
    }

    /// Writes the line about a call that failed with `error` after its response left the middlewares.
    func logFailureAfterChain(_ error: ParleyError, to logger: Logger) {
        var metadata = requestMetadata(detailed: false)
        metadata["parley.error_kind"] = .string(error.kind.label)
        let scrubbed = redaction.scrub(error)
        let message =
            "\(request.method.rawValue) \(redactedURL): \(endpoint) failed after its response: \(Self.summary(scrubbed))"
        logger.log(level: middleware.failureLevel, "\(message)", error: scrubbed, metadata: metadata)
    }

    /// Writes the line about the finished `exchange` to `logger`.
    func log(_ exchange: ObservedExchange, to logger: Logger) {
        let failed = exchange.failure != nil || (exchange.response?.status.code ?? 0) >= 500
        let level = failed ? middleware.failureLevel : middleware.level
        guard logger.logLevel <= level else { return }
        let detailed = logger.logLevel <= .debug
        var metadata = requestMetadata(detailed: false)  // the request's header fields went with the line when sent
        metadata["parley.duration_ms"] = .string(Self.milliseconds(exchange.duration))
        metadata["parley.bytes_sent"] = .stringConvertible(exchange.sent.bytes)
        metadata["parley.bytes_received"] = .stringConvertible(exchange.received.bytes)
        var message = "\(request.method.rawValue) \(redactedURL)"
        if let response = exchange.response {
            metadata["http.response.status_code"] = .stringConvertible(response.status.code)
            if let cache = HTTPCache.outcome(of: response) { metadata["parley.cache"] = .string(cache.rawValue) }
            if detailed { metadata["http.response.headers"] = headers(response.headerFields) }
            message += " → \(response.status.code) \(PrintableText.escaping(response.status.reasonPhrase))"
        }
        if exchange.bodyDropped { metadata["parley.body_dropped"] = "true" }
        if logger.logLevel <= .trace {
            metadata["http.request.body"] = Self.excerpt(exchange.sent)
            metadata["http.response.body"] = Self.excerpt(exchange.received)
        }
        var scrubbed: (any Error)?
        if let failure = exchange.failure {
            let error = redaction.scrub(failure)
            scrubbed = error
            metadata["parley.error_kind"] = .string(ObservationLabels.errorKind(failure))
            let what = exchange.response == nil ? " failed" : ", then reading the body failed"
            message += "\(what) after \(Self.milliseconds(exchange.duration)) ms: \(Self.summary(error))"
        } else {
            message += " in \(Self.milliseconds(exchange.duration)) ms"
            if exchange.bodyDropped { message += " (body not read to its end)" }
        }
        let cache = exchange.response.flatMap(HTTPCache.outcome(of:)).map { ", cache \($0.rawValue)" } ?? ""
        message += " (attempt \(attempt ?? 1), sent \(exchange.sent.bytes) B, received \(exchange.received.bytes) B\(cache))"
        logger.log(level: level, "\(message)", error: scrubbed, metadata: metadata)
    }

    /// The header fields as `name: value` strings, the values of redacted ones replaced.
    private func headers(_ fields: HTTPFields) -> Logger.MetadataValue {
        .array(
            fields.map { field in
                let value = sensitive.headerFields.contains(field.name) ? Redaction.placeholder : field.value
                return .string(PrintableText.escaping("\(field.name.canonicalName): \(value)"))
            }
        )
    }

    /// Scrubs the request's secrets (sensitive query items, user info, sensitive header values) out of errors.
    private var redaction: Redaction {
        sensitive.redaction(of: request, url: url)
    }

    /// A `ParleyError`'s kind and message, or any other error's description.
    private static func summary(_ error: any Error) -> String {
        guard let error = error as? ParleyError else { return PrintableText.escaping("\(error)") }
        return "[\(error.kind)] \(PrintableText.escaping(error.message))"
    }

    /// The kept first bytes of a body as text, `…` marking a cut; what is not printable is escaped (a server must not
    /// forge log lines or drive a terminal through the log).
    private static func excerpt(_ totals: BodyObserver.Totals) -> Logger.MetadataValue {
        let text = PrintableText.escaping(bytes: totals.prefix)
        return .string(totals.truncated ? text + "…" : text)
    }

    /// `duration` in milliseconds with one decimal.
    static func milliseconds(_ duration: Duration) -> String {
        let tenths = duration.components.seconds * 10_000 + duration.components.attoseconds / 100_000_000_000_000
        return "\(tenths / 10).\(tenths % 10)"
    }
}
