import HTTPTypes
import OpenAPIRuntime

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The order of every call a ``Client`` makes, in one place. Built once per client; every entry point (``Client/send(_:)``,
/// ``Client/response(for:)``, ``Client/upload(_:body:onProgress:)``, ``Client/stream(_:)``, ``Client/events(_:lastEventID:reconnect:maxEventSize:)``,
/// ``Client/download(_:to:resume:onProgress:)``, JSON-RPC over HTTP) is an adapter that says what to do with the
/// response (decode it, validate its head and stream it, write it to a file) and calls ``execute(_:body:extraHeaders:progress:timeout:consume:)``.
///
/// A call, top to bottom (``execute(_:body:extraHeaders:progress:timeout:consume:)``):
///
/// 1. **target**: the endpoint's method and URL, built once from the parsed base URL; it names the call in every error;
/// 2. **deadline**: the call's timeout (the endpoint's, else ``Client/Configuration/timeout``) over everything below;
/// 3. **limiter**: a slot of ``Client/Configuration/maxConcurrentRequests``, taken before the body is encoded and
///    held until the response body has been read or dropped;
/// 4. **request**: header fields (client's, endpoint's, the adapter's) and the encoded body, counted for progress;
/// 5. **scope**: ``CallContext/current`` and what the stages below read per call (``CallScope``);
/// 6. **middlewares**: the client's, outermost first; each sees the call once (a retry sends it down again);
/// 7. **redirects**: each hop followed by the client's ``RedirectPolicy``, credentials kept to their origin;
/// 8. **per request**: each request handed down from here (every attempt, every hop) gets the cookies of
///    ``Client/Configuration/cookies`` for its URL (and its response's are stored), may be answered from
///    ``Client/Configuration/cache``, is counted, then passes the
///    client's request middlewares, where tracing lives (a ``TracingMiddleware`` listed among the call's middlewares
///    is moved here, ahead of the request middlewares, so that it opens a span per request);
/// 9. **transport**: header checks, decompression negotiated, the response head awaited within
///    ``Client/Configuration/responseHeadTimeout``, the body inflated on the way back;
/// 10. **consume**: the adapter's step (validation and decoding, or a stream) on the response;
///
/// and one place, ``failure(_:request:)``, where every error leaves: cancellation classified first, the request attached.
/// The middlewares that observe outcomes (``CallOutcomeObserver``) hear of the failures they could not see: after
/// the chain (stage 10), or, for the request middlewares, before any request reached them.
/// A class, shared by the copies of its client: each call captures one reference, not the whole configuration.
final class Pipeline: Sendable {
    /// A stage's view of what is below it: the `next` of a `ClientMiddleware`.
    typealias Handler = @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    /// Stages 7 to 9 of a call whose response is read whole by the transport (``WholeResponseTransport``): the call's
    /// scope is handed down, not bound as a task-local, since no middleware runs below.
    typealias WholeHandler =
        @Sendable (HTTPRequest, HTTPBody?, URL, CallScope) async throws -> (
            HTTPResponse, ResponseBody.Storage
        )

    let baseURL: URL
    let base: Result<BaseURL, ParleyError>
    let limiter: ConcurrencyLimiter?
    let configuration: Client.Configuration
    /// Stage 6: the client's middlewares but tracing.
    let middlewares: [any ClientMiddleware]
    /// Stage 8: tracing (the first ``TracingMiddleware`` of either list), then the client's other request middlewares.
    let requestMiddlewares: [any ClientMiddleware]
    /// Stages 6 to 9, composed once.
    let handler: Handler
    /// Stages 7 to 9 for responses read whole where they arrive, when nothing between the transport and the decoder
    /// can observe the body (no middleware, no cache) and the transport can (``WholeResponseTransport``).
    let wholeHandler: WholeHandler?
    /// The transport of ``wholeHandler``, which says per request whether it can read the response whole.
    let wholeTransport: (any WholeResponseTransport)?
    /// Whether a stage may change a request on its way to the transport (a middleware, the cookie jar).
    let recordsSentRequests: Bool
    /// What the client treats as secret (``SensitiveFields/current`` within its calls).
    let sensitiveFields: SensitiveFields

    init(
        baseURL: URL,
        base: Result<BaseURL, ParleyError>,
        transport: any ClientTransport,
        middlewares: [any ClientMiddleware],
        requestMiddlewares: [any ClientMiddleware],
        limiter: ConcurrencyLimiter?,
        configuration: Client.Configuration
    ) {
        self.baseURL = baseURL
        self.base = base
        self.limiter = limiter
        self.configuration = configuration
        (self.middlewares, self.requestMiddlewares) = Self.placingTracing(middlewares, requestMiddlewares)
        recordsSentRequests = !middlewares.isEmpty || !requestMiddlewares.isEmpty || configuration.cookies != nil
        sensitiveFields = SensitiveFields.of(configuration)
        // Composed from the inside out: 9, 8, 7, 6.
        var handler = Self.transportStage(transport, base: try? base.get(), decompression: configuration.decompression)
        handler = Self.middlewareStage(self.requestMiddlewares, around: handler)
        handler = Self.countingStage(around: handler)
        // A credential added below the cache (by an auth request middleware) is one it cannot vary on: no cache then.
        if let cache = configuration.cache, !self.requestMiddlewares.contains(where: { $0 is any CredentialMiddleware }) {
            // Per hop, under the cookies: a stored answer is per URL, and per user (its Cookie and Authorization).
            let below = handler
            handler = { request, body, url in try await cache.handle(request, body: body, baseURL: url, next: below) }
        }
        if let jar = configuration.cookies { handler = Self.cookieStage(jar, around: handler) }
        let redirects = RedirectFollower(policy: configuration.redirects)
        handler = Self.redirectStage(redirects, around: handler)
        handler = Self.middlewareStage(self.middlewares, around: handler)
        self.handler = handler
        // The fast path: the same stages 7 to 9 for a body that nothing but the decoder reads.
        if let whole = transport as? any WholeResponseTransport, middlewares.isEmpty, requestMiddlewares.isEmpty,
            configuration.cache == nil
        {
            var wholeHandler = Self.wholeTransportStage(whole, base: try? base.get(), decompression: configuration.decompression)
            if let jar = configuration.cookies { wholeHandler = Self.cookieStage(jar, around: wholeHandler) }
            let below = wholeHandler
            self.wholeHandler = { request, body, url, scope in
                try await redirects.send(request, body: body, baseURL: url, drain: { _ in }) { request, body, url in
                    try await below(request, body, url, scope)
                }
            }
            wholeTransport = whole
        } else {
            wholeHandler = nil
            wholeTransport = nil
        }
    }

    /// Tracing is per request (stage 8), wherever it is listed: the first ``TracingMiddleware`` of either list goes
    /// first in the request middlewares, and any other one is dropped (a request is traced once).
    private static func placingTracing(
        _ middlewares: [any ClientMiddleware],
        _ requestMiddlewares: [any ClientMiddleware]
    ) -> (middlewares: [any ClientMiddleware], requestMiddlewares: [any ClientMiddleware]) {
        let tracing = (middlewares + requestMiddlewares).first { $0 is TracingMiddleware }
        let others = { (list: [any ClientMiddleware]) in list.filter { !($0 is TracingMiddleware) } }
        return (others(middlewares), (tracing.map { [$0] } ?? []) + others(requestMiddlewares))
    }

    // MARK: - One call

    /// Runs one call of `endpoint` through every stage and hands the response to `consume` (within the deadline).
    ///
    /// - Parameters:
    ///   - body: replaces the endpoint's own body when given.
    ///   - extraHeaders: fields added to the request where the endpoint does not set them (a download's `Range`).
    ///   - progress: told of the request body's bytes as the transport takes them.
    ///   - timeout: the call's limit over every stage, `consume` included; `nil` for none.
    ///   - whole: set when `consume` reads the whole body anyway: the transport may then read it whole where it
    ///     arrives, within these limits (``wholeHandler``), and `consume` gets it buffered.
    ///   - consume: the adapter's step on the response; a streamed body holds the call's slot until read or dropped.
    func execute<E: Endpoint, Value: Sendable>(
        _ endpoint: E,
        body override: RequestBody? = nil,
        extraHeaders: HTTPFields = [:],
        progress: ProgressReporter? = nil,
        timeout: Duration?,
        readingWhole whole: WholeResponseLimits? = nil,
        consume: @escaping @Sendable (HTTPResponse, ResponseBody.Storage) async throws(ParleyError) -> Value
    ) async throws(ParleyError) -> Value {
        // 1. target
        let target = try makeRequestHead(endpoint)
        // What ParleyError.curlCommand shows: recorded per request only when something between here and the transport
        // changes the request (middlewares, cookies); otherwise rebuilt on failure, and the call allocates nothing.
        let sent = recordsSentRequests ? SentRequest() : nil
        let call = { @Sendable [self] () async throws(ParleyError) -> Value in
            // 3. limiter
            let permit = try await limiter?.acquire()
            // 4. request
            let request: HTTPRequest
            var body: HTTPBody?
            do throws(ParleyError) {
                (request, body) = try makeRequest(endpoint, head: target, body: override, extraHeaders: extraHeaders)
            } catch {
                permit?.release()
                throw error
            }
            if let progress, let unwrapped = body { body = CountingBody.wrap(unwrapped, reporter: progress) }
            // 5 to 9
            let scope = CallScope(
                context: CallContext(endpointName: endpoint.name, isIdempotent: endpoint.isIdempotent),
                headTimeout: endpoint.timeout ?? configuration.responseHeadTimeout,
                requests: requestMiddlewares.isEmpty ? nil : RequestCounter(),
                sensitiveFields: sensitiveFields,
                sent: sent,
                whole: whole,
                decompression: configuration.decompression,
                target: RequestTarget(target, baseURL: nil)
            )
            let response: HTTPResponse
            var storage: ResponseBody.Storage
            do {
                if whole != nil, let wholeHandler, let wholeTransport, wholeTransport.boundsHead(of: request, body: body) {
                    (response, storage) = try await wholeHandler(request, body, baseURL, scope)
                } else {
                    let responseBody: HTTPBody?
                    (response, responseBody) = try await sendThroughStages(request, body: body, endpoint: endpoint, scope: scope)
                    storage = .streaming(responseBody)
                }
            } catch {
                permit?.release()
                let classified = Self.classify(error)
                if scope.requests?.count == 0 {
                    reportFailureBeforeSending(classified, request: request, endpoint: endpoint.name)
                }
                throw failure(classified, target: target, built: request, sent: sent)
            }
            if let permit {
                if case .streaming(let responseBody) = storage {
                    storage = .streaming(ConcurrencyLimiter.holding(permit, until: responseBody))
                } else {
                    permit.release()  // the body is read
                }
            }
            // 10. consume
            do throws(ParleyError) {
                return try await consume(response, storage)
            } catch {
                let failure = failure(error, target: target, built: request, sent: sent)
                CallScope.$current.withValue(scope) {  // what is secret (SensitiveFields.current), for the observers
                    reportFailureAfterChain(failure, request: request, endpoint: endpoint.name)
                }
                throw failure
            }
        }
        do throws(ParleyError) {
            // 2. deadline
            guard let timeout else { return try await call() }
            return try await Self.within(timeout, call)
        } catch {
            // Before the request was built, or past the deadline: its header fields built again, on this path only.
            let built = error.curlCommand == nil ? (try? makeRequestFields(endpoint, extraHeaders: extraHeaders)) : nil
            var request = target
            if let built { request.headerFields = built }
            throw failure(error, target: target, built: request, sent: sent)
        }
    }

    /// ``failure(_:request:sent:baseURL:sensitiveFields:)`` for a call of this client: the last request handed to the
    /// transport, else the request as `built` (with the fields the transport stage adds), as the curl command.
    private func failure(_ error: ParleyError, target: HTTPRequest, built: HTTPRequest, sent: SentRequest?) -> ParleyError {
        let last =
            sent?.last ?? SentRequest.Record(request: configuration.decompression?.prepare(built) ?? built, baseURL: baseURL)
        return Self.failure(error, request: target, sent: last, baseURL: baseURL, sensitiveFields: sensitiveFields)
    }

    /// Stages 5 to 9 for one built request.
    private func sendThroughStages<E: Endpoint>(
        _ request: HTTPRequest,
        body: HTTPBody?,
        endpoint: E,
        scope: CallScope
    ) async throws -> (HTTPResponse, HTTPBody?) {
        try await CallScope.$current.withValue(scope) { try await handler(request, body, baseURL) }
    }

    // MARK: - Stages 6 to 9

    /// Stage 6 (and the request middlewares of 8): `middlewares` around `next`, outermost first. A middleware's own
    /// error (not a `ParleyError` from below) is classified as ``ParleyError/Kind/middleware``, naming it.
    private static func middlewareStage(_ middlewares: [any ClientMiddleware], around next: @escaping Handler) -> Handler {
        var handler = next
        for middleware in middlewares.reversed() {
            let downstream = handler
            handler = { request, body, url in
                do {
                    return try await middleware.intercept(
                        request,
                        body: body,
                        baseURL: url,
                        operationID: CallScope.current?.operationID ?? "",
                        next: downstream
                    )
                } catch {
                    throw ParleyError.wrapping(error, as: .middleware, "The middleware \(type(of: middleware)) failed: \(error)")
                }
            }
        }
        return handler
    }

    /// Stage 7: redirects followed under the middlewares, so that each middleware sees the call once.
    private static func redirectStage(_ redirects: RedirectFollower, around next: @escaping Handler) -> Handler {
        { request, body, url in
            try await redirects.send(request, body: body, baseURL: url, drain: UnusedBody.drain) { request, body, url in
                try await next(request, body, url)
            }
        }
    }

    /// Stage 8, first: the cookies of the jar that belong to the request's URL added to it, the ones its response sets
    /// stored. Under the redirects, so that each hop sends its own URL's cookies and keeps what it sets.
    private static func cookieStage(_ jar: CookieJar, around next: @escaping Handler) -> Handler {
        { request, body, url in
            try await withCookies(of: jar, request, url) { request in try await next(request, body, url) }
        }
    }

    /// ``cookieStage(_:around:)`` for a response read whole.
    private static func cookieStage(_ jar: CookieJar, around next: @escaping WholeHandler) -> WholeHandler {
        { request, body, url, scope in
            try await withCookies(of: jar, request, url) { request in try await next(request, body, url, scope) }
        }
    }

    /// `send(request)` with the jar's cookies for its URL added, the ones its response sets stored.
    private static func withCookies<Payload>(
        of jar: CookieJar,
        _ request: HTTPRequest,
        _ url: URL,
        send: (HTTPRequest) async throws -> (HTTPResponse, Payload)
    ) async throws -> (HTTPResponse, Payload) {
        let target = RequestTarget.of(request, baseURL: url)
        var request = request
        if let cookies = jar.cookieHeader(for: target) {
            let own = request.headerFields[values: .cookie]
            request.headerFields[.cookie] = (own + [cookies]).joined(separator: "; ")
        }
        let (response, payload) = try await send(request)
        jar.store(response.headerFields[values: .setCookie], from: target)
        return (response, payload)
    }

    /// Stage 8: each request handed down counted (``CallScope/requests``), for the request middlewares.
    private static func countingStage(around next: @escaping Handler) -> Handler {
        { request, body, url in
            CallScope.current?.requests?.increment()
            return try await next(request, body, url)
        }
    }

    /// Stage 9: the request checked and handed to `transport` with its origin as base URL, the head awaited within the
    /// call's head limit (by the transport itself when it can, else by a ``HeadDeadline``), the body inflated.
    private static func transportStage(
        _ transport: any ClientTransport,
        base: BaseURL?,
        decompression: ResponseDecompression?
    ) -> Handler {
        // A transport that bounds the head itself spares a timer task per request (``HeadLimitingTransport``).
        let limiting = transport as? any HeadLimitingTransport
        return { request, body, url in
            let request = decompression?.prepare(request) ?? request
            let url = BaseURL.transportURL(for: request, base: base, fallback: url)
            try InjectionGuard.refuseInjected(request)
            let scope = CallScope.current
            if let scope { scope.sent?.record(request, baseURL: url, credentials: scope.credentials) }
            let operationID = scope?.operationID ?? ""
            let response: HTTPResponse
            let responseBody: HTTPBody?
            do {
                if let limit = scope?.headTimeout, let limiting, limiting.boundsHead(of: request, body: body) {
                    (response, responseBody) = try await limiting.send(
                        request,
                        body: body,
                        baseURL: url,
                        operationID: operationID,
                        headLimit: limit
                    )
                } else if let limit = scope?.headTimeout {
                    (response, responseBody) = try await HeadDeadline(limit: limit).send(request, body: body) { request, body in
                        try await transport.send(request, body: body, baseURL: url, operationID: operationID)
                    }
                } else {
                    (response, responseBody) = try await transport.send(
                        request,
                        body: body,
                        baseURL: url,
                        operationID: operationID
                    )
                }
            } catch {
                throw transportFailure(error, request: request)
            }
            guard let decompression else { return (response, responseBody) }
            return try decompression.decode(response, body: responseBody)
        }
    }

    /// Stage 9 for a response read whole (``WholeResponseTransport``): the same checks and limits as
    /// ``transportStage(_:base:decompression:)``, the head and the body bounded by the transport where the bytes arrive.
    /// A compressed body is inflated as the decoder reads it, by the same ``ResponseDecompression``.
    private static func wholeTransportStage(
        _ transport: any WholeResponseTransport,
        base: BaseURL?,
        decompression: ResponseDecompression?
    ) -> WholeHandler {
        { request, body, url, scope in
            let request = decompression?.prepare(request) ?? request
            let url = BaseURL.transportURL(for: request, base: base, fallback: url)
            try InjectionGuard.refuseInjected(request)
            scope.sent?.record(request, baseURL: url, credentials: scope.credentials)
            // Always set on this path: `execute` takes it only for a call that reads whole.
            guard var limits = scope.whole else { throw ParleyError(.invalidRequest, "No limits for a whole response.") }
            limits.head = scope.headTimeout
            let response: HTTPResponse
            let whole: WholeBody
            do {
                (response, whole) = try await transport.sendReadingWhole(request, body: body, baseURL: url, limits: limits)
            } catch {
                throw transportFailure(error, request: request)
            }
            let storage = ResponseBody.Storage(whole, maxBytes: limits.maxBytes)
            guard let decompression, case .buffered(let data) = storage, !data.isEmpty,
                ResponseDecompression.coding(of: response) != nil
            else { return (response, storage) }
            let (decoded, inflating) = try decompression.decode(response, body: HTTPBody(data))
            return (decoded, .streaming(inflating))
        }
    }
}
