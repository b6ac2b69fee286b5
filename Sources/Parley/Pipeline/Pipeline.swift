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
///    ``Client/Configuration/cache``, is counted (when there are request middlewares to tell), then passes the
///    client's request middlewares, where tracing lives (a ``TracingMiddleware`` listed among the call's middlewares
///    is moved here, ahead of the request middlewares, so that it opens a span per request);
/// 9. **transport**: header checks, decompression negotiated, the request handed to the one ``PipelineTransport``
///    (a plain `ClientTransport` adapted once), which awaits the response head within
///    ``Client/Configuration/responseHeadTimeout`` (``HeadDeadline``) and hands up the body streamed, or read whole
///    where it arrived when the call reads it whole anyway (``CallScope/whole``); the body inflated on the way back;
/// 10. **consume**: the adapter's step (validation and decoding, or a stream) on the response;
///
/// and one place, ``failure(_:request:)``, where every error leaves: cancellation classified first, the request attached.
/// The middlewares that observe outcomes (``CallOutcomeObserver``) hear of the failures they could not see: after
/// the chain (stage 10), or, for the request middlewares, before any request reached them.
/// A class, shared by the copies of its client: each call captures one reference, not the whole configuration.
final class Pipeline: Sendable {
    /// A stage's view of what is below it: the `next` of a `ClientMiddleware`, with the response body as the transport
    /// handed it up (streamed, or read whole). Every call passes the same stages; the call's scope is bound around them
    /// (``CallScope/current``).
    typealias Handler = @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, ResponseBody.Storage)
    /// What a `ClientMiddleware` (or the cache) sees below it.
    typealias BodyHandler = @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    /// A stage that sees response bodies as streams: a middleware, the cache.
    typealias StreamedStage =
        @Sendable (HTTPRequest, HTTPBody?, URL, @escaping BodyHandler) async throws -> (HTTPResponse, HTTPBody?)

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
        var handler = Self.transportStage(
            adapted(transport),
            base: try? base.get(),
            decompression: configuration.decompression
        )
        if !self.requestMiddlewares.isEmpty {
            handler = Self.middlewareStage(self.requestMiddlewares, around: handler)
            // Counted for the request middlewares only (``CallScope/requests`` is `nil` without them).
            handler = Self.countingStage(around: handler)
        }
        // A credential added below the cache (by an auth request middleware) is one it cannot vary on: no cache then.
        if let cache = configuration.cache, !self.requestMiddlewares.contains(where: { $0 is any CredentialMiddleware }) {
            // Per hop, under the cookies: a stored answer is per URL, and per user (its Cookie and Authorization).
            handler = Self.streamedStage(around: handler) { request, body, url, next in
                try await cache.handle(request, body: body, baseURL: url, next: next)
            }
        }
        if let jar = configuration.cookies { handler = Self.cookieStage(jar, around: handler) }
        handler = Self.redirectStage(RedirectFollower(policy: configuration.redirects), around: handler)
        handler = Self.middlewareStage(self.middlewares, around: handler)
        self.handler = handler
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
    ///     arrives, within these limits (``CallScope/whole``), and `consume` gets it buffered.
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
        // A local function, not a closure: its captures are boxed only when a deadline runs it as a child task.
        @Sendable func call() async throws(ParleyError) -> Value {
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
            let scope = makeScope(
                endpoint.name,
                endpoint.isIdempotent,
                endpoint.timeout,
                target: target,
                sent: sent,
                whole: whole
            )
            let response: HTTPResponse
            var storage: ResponseBody.Storage
            do {
                (response, storage) = try await CallScope.$current.withValue(scope) {
                    try await handler(request, body, baseURL)
                }
            } catch {
                permit?.release()
                throw chainFailure(error, scope: scope, endpoint: endpoint.name, target: target, built: request, sent: sent)
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
                throw consumeFailure(error, scope: scope, endpoint: endpoint.name, target: target, built: request, sent: sent)
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

    /// The scope of a call (stage 5). This and the failures below are out of line: what they take lives on the
    /// thread's stack, not in the async frame of every call (package-benchmark's `client-overhead` counts the
    /// frames' memory, and a frame over a task's slab costs an allocation).
    @inline(never)
    private func makeScope(
        _ name: String,
        _ isIdempotent: Bool,
        _ timeout: Duration?,
        target: HTTPRequest,
        sent: SentRequest?,
        whole: WholeResponseLimits?
    ) -> CallScope {
        CallScope(
            context: CallContext(endpointName: name, isIdempotent: isIdempotent),
            headTimeout: timeout ?? configuration.responseHeadTimeout,
            requests: requestMiddlewares.isEmpty ? nil : RequestCounter(),
            sensitiveFields: sensitiveFields,
            sent: sent,
            whole: whole,
            decompression: configuration.decompression,
            target: RequestTarget(target, baseURL: nil)
        )
    }

    /// The error of a call whose stages 5 to 9 failed, told to the request middlewares' observers when no request
    /// reached them.
    @inline(never)
    private func chainFailure(
        _ error: any Error,
        scope: CallScope,
        endpoint: String,
        target: HTTPRequest,
        built request: HTTPRequest,
        sent: SentRequest?
    ) -> ParleyError {
        let classified = Self.classify(error)
        if scope.requests?.count == 0 {
            reportFailureBeforeSending(classified, request: request, endpoint: endpoint)
        }
        return failure(classified, target: target, built: request, sent: sent)
    }

    /// The error of a call whose adapter's step (stage 10) failed, told to the middlewares' observers.
    @inline(never)
    private func consumeFailure(
        _ error: ParleyError,
        scope: CallScope,
        endpoint: String,
        target: HTTPRequest,
        built request: HTTPRequest,
        sent: SentRequest?
    ) -> ParleyError {
        let failure = failure(error, target: target, built: request, sent: sent)
        CallScope.$current.withValue(scope) {  // what is secret (SensitiveFields.current), for the observers
            reportFailureAfterChain(failure, request: request, endpoint: endpoint)
        }
        return failure
    }

    /// ``failure(_:request:sent:baseURL:sensitiveFields:)`` for a call of this client: the last request handed to the
    /// transport, else the request as `built` (with the fields the transport stage adds), as the curl command.
    private func failure(_ error: ParleyError, target: HTTPRequest, built: HTTPRequest, sent: SentRequest?) -> ParleyError {
        let last =
            sent?.last ?? SentRequest.Record(request: configuration.decompression?.prepare(built) ?? built, baseURL: baseURL)
        return Self.failure(error, request: target, sent: last, baseURL: baseURL, sensitiveFields: sensitiveFields)
    }

    // MARK: - Stages 6 to 9

    /// Stage 6 (and the request middlewares of 8): `middlewares` around `next`, outermost first. A middleware's own
    /// error (not a `ParleyError` from below) is classified as ``ParleyError/Kind/middleware``, naming it.
    private static func middlewareStage(_ middlewares: [any ClientMiddleware], around next: @escaping Handler) -> Handler {
        var handler = next
        for middleware in middlewares.reversed() {
            handler = streamedStage(around: handler) { request, body, url, next in
                do {
                    return try await middleware.intercept(
                        request,
                        body: body,
                        baseURL: url,
                        operationID: CallScope.current?.operationID ?? "",
                        next: next
                    )
                } catch {
                    throw ParleyError.wrapping(error, as: .middleware, "The middleware \(type(of: middleware)) failed: \(error)")
                }
            }
        }
        return handler
    }

    /// A stage that sees the response body as a stream (a middleware, the cache) around `next`: a body read whole is
    /// handed to it as a stream of its bytes, and when the stage hands that same stream back (it did not replace the
    /// body), the call keeps the body as it was read.
    private static func streamedStage(
        around next: @escaping Handler,
        _ stage: @escaping StreamedStage
    ) -> Handler {
        { request, body, url in
            let below = StorageBelow()
            let (response, responseBody) = try await stage(request, body, url) { request, body, url in
                let (response, storage) = try await next(request, body, url)
                return (response, below.record(storage))
            }
            return (response, below.storage(of: responseBody))
        }
    }

    /// Stage 7: redirects followed under the middlewares, so that each middleware sees the call once.
    private static func redirectStage(_ redirects: RedirectFollower, around next: @escaping Handler) -> Handler {
        { request, body, url in
            try await redirects.send(request, body: body, baseURL: url, drain: drain, hop: next)
        }
    }

    /// Drops a redirect's response body: a streamed one is read a little, so that its connection can be reused; one read
    /// whole is simply let go.
    private static func drain(_ storage: ResponseBody.Storage) async {
        if case .streaming(let body) = storage { await UnusedBody.drain(body) }
    }

    /// Stage 8, first: the cookies of the jar that belong to the request's URL added to it, the ones its response sets
    /// stored. Under the redirects, so that each hop sends its own URL's cookies and keeps what it sets.
    private static func cookieStage(_ jar: CookieJar, around next: @escaping Handler) -> Handler {
        { request, body, url in
            try await withCookies(of: jar, request, url) { request in try await next(request, body, url) }
        }
    }

    /// `send(request)` with the jar's cookies for its URL added, the ones its response sets stored.
    private static func withCookies(
        of jar: CookieJar,
        _ request: HTTPRequest,
        _ url: URL,
        send: (HTTPRequest) async throws -> (HTTPResponse, ResponseBody.Storage)
    ) async throws -> (HTTPResponse, ResponseBody.Storage) {
        let target = RequestTarget.of(request, baseURL: url)
        var request = request
        if let cookies = jar.cookieHeader(for: target) {
            let own = request.headerFields[values: .cookie]
            request.headerFields[.cookie] = (own + [cookies]).joined(separator: "; ")
        }
        let (response, storage) = try await send(request)
        jar.store(response.headerFields[values: .setCookie], from: target)
        return (response, storage)
    }

    /// Stage 8: each request handed down counted (``CallScope/requests``), for the request middlewares.
    private static func countingStage(around next: @escaping Handler) -> Handler {
        { request, body, url in
            CallScope.current?.requests?.increment()
            return try await next(request, body, url)
        }
    }

    /// Stage 9: the request checked and handed to `transport` with its origin as base URL and the call's scope (which
    /// says how long the head may take, and whether the body may be read whole), the body inflated on the way back.
    private static func transportStage(
        _ transport: any PipelineTransport,
        base: BaseURL?,
        decompression: ResponseDecompression?
    ) -> Handler {
        { request, body, url in
            let (request, url, scope) = try prepare(request, url, base: base, decompression: decompression)
            let response: HTTPResponse
            let storage: ResponseBody.Storage
            do {
                (response, storage) = try await transport.send(request, body: body, baseURL: url, scope: scope)
            } catch {
                throw transportFailure(error, request: request)
            }
            guard let decompression else { return (response, storage) }
            return try inflating(response, storage, decompression)
        }
    }

    /// Stage 9's request, checked, with the `Accept-Encoding` of decompression, its base URL (its origin) and the
    /// call's scope, recorded as the call's last request. Out of line, like ``inflating(_:_:_:)``: what it takes lives
    /// on the thread's stack, not in the async frame of every call (package-benchmark's `client-overhead` counts the
    /// frames' memory).
    @inline(never)
    private static func prepare(
        _ request: HTTPRequest,
        _ url: URL,
        base: BaseURL?,
        decompression: ResponseDecompression?
    ) throws -> (HTTPRequest, URL, CallScope) {
        let request = decompression?.prepare(request) ?? request
        let url = BaseURL.transportURL(for: request, base: base, fallback: url)
        try InjectionGuard.refuseInjected(request)
        let scope = CallScope.current ?? CallScope()
        scope.sent?.record(request, baseURL: url, credentials: scope.credentials)
        return (request, url, scope)
    }

    /// `storage` inflated as its `Content-Encoding` says (a body read whole and still compressed: as the decoder reads
    /// it, within the same limits).
    @inline(never)
    private static func inflating(
        _ response: HTTPResponse,
        _ storage: ResponseBody.Storage,
        _ decompression: ResponseDecompression
    ) throws -> (HTTPResponse, ResponseBody.Storage) {
        switch storage {
        case .streaming(let body):
            let (decoded, inflating) = try decompression.decode(response, body: body)
            return (decoded, .streaming(inflating))
        case .buffered(let data) where !data.isEmpty && ResponseDecompression.coding(of: response) != nil:
            let (decoded, inflating) = try decompression.decode(response, body: HTTPBody(data))
            return (decoded, .streaming(inflating))
        case .buffered, .failed:
            return (response, storage)
        }
    }
}

/// The storage a stage that sees bodies as streams (``Pipeline/streamedStage(around:_:)``) was handed from below, so
/// that the body read whole comes back as it was when the stage hands back the same stream.
private final class StorageBelow: Sendable {
    private let state = LockedState<(body: HTTPBody?, storage: ResponseBody.Storage)?>(nil)

    /// `storage` as a stream, remembered when it was not one.
    func record(_ storage: ResponseBody.Storage) -> HTTPBody? {
        if case .streaming(let body) = storage { return body }
        let body = storage.body
        state.withLock { $0 = (body, storage) }
        return body
    }

    /// What the stage handed back, as storage: the storage from below when it is that body (or no body for an empty
    /// one), else the stream.
    func storage(of body: HTTPBody?) -> ResponseBody.Storage {
        if let recorded = state.withLock({ $0 }), recorded.body === body { return recorded.storage }
        return .streaming(body)
    }
}
