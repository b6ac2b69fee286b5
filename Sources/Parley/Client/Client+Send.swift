#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
public import HTTPTypes
import OpenAPIRuntime

extension Client {
    /// Sends `endpoint` and returns its decoded response.
    ///
    /// Cancelling the calling task cancels the request in the transport and fails with
    /// ``ParleyError/Kind/cancelled``.
    public func send<E: Endpoint>(_ endpoint: E) async throws(ParleyError) -> E.Response {
        try await response(for: endpoint).value
    }

    /// Sends `endpoint` and returns its decoded response together with the response head (status, headers).
    public func response<E: Endpoint>(
        for endpoint: E
    ) async throws(ParleyError) -> (value: E.Response, response: HTTPResponse) {
        try await response(for: endpoint, body: nil, progress: nil)
    }

    /// ``response(for:)`` with `body` instead of the endpoint's own (when not `nil`), its bytes reported to `progress`.
    func response<E: Endpoint>(
        for endpoint: E,
        body: RequestBody?,
        progress: ProgressReporter?
    ) async throws(ParleyError) -> (value: E.Response, response: HTTPResponse) {
        guard let timeout = endpoint.timeout ?? configuration.timeout else {
            return try await perform(endpoint, body: body, progress: progress)
        }
        do {
            return try await Self.withTimeout(timeout) { () throws(ParleyError) in
                try await self.perform(endpoint, body: body, progress: progress)
            }
        } catch {
            var failure = error
            if failure.request == nil, let request = try? makeRequestHead(endpoint) {
                failure.request = Self.summary(of: request)
            }
            throw failure
        }
    }

    /// Builds, sends, validates and decodes; every failure comes out as a `ParleyError` with the request attached.
    func perform<E: Endpoint>(
        _ endpoint: E,
        body override: RequestBody? = nil,
        progress: ProgressReporter? = nil
    ) async throws(ParleyError) -> (value: E.Response, response: HTTPResponse) {
        // The slot first, then the request: a call waiting for a slot holds no encoded body.
        let permit = try await acquireSlot(for: endpoint)
        var (request, body): (HTTPRequest, HTTPBody?)
        do throws(ParleyError) {
            (request, body) = try makeRequest(endpoint, body: override)
        } catch {
            permit?.release()
            throw error
        }
        if let progress, let unwrapped = body { body = CountingBody.wrap(unwrapped, reporter: progress) }
        do throws(ParleyError) {
            let (response, responseBody) = try await run(
                request,
                body: body,
                context: CallContext(endpointName: endpoint.name, isIdempotent: endpoint.isIdempotent),
                permit: permit,
                headTimeout: headTimeout(for: endpoint)
            )
            let value: E.Response
            do throws(ParleyError) {
                // Without an overall timeout, the body must still arrive within responseBodyTimeout.
                let bodyLimit = endpoint.timeout == nil && configuration.timeout == nil ? configuration.responseBodyTimeout : nil
                value = try await decode(endpoint, response: response, body: BodyDeadline.wrap(responseBody, limit: bodyLimit))
            } catch {
                if !middlewares.isEmpty { reportFailureAfterChain(error, request: request, endpoint: endpoint.name) }
                throw error
            }
            return (value, response)
        } catch {
            var error = error
            if error.kind != .timeout, error.kind != .cancelled, Task.isCancelled {
                error = ParleyError(.cancelled, "The call was cancelled before it completed.", underlying: error)
            }
            if error.request == nil { error.request = Self.summary(of: request) }
            throw error
        }
    }

    /// Waits for one of the client's ``Configuration/maxConcurrentRequests`` slots (`nil` without a limit), before
    /// the request is built: a waiting call holds no encoded body.
    func acquireSlot<E: Endpoint>(for endpoint: E) async throws(ParleyError) -> ConcurrencyLimiter.Permit? {
        guard let limiter else { return nil }
        do {
            return try await limiter.acquire()
        } catch {
            var failure = error
            if failure.request == nil, let request = try? makeRequestHead(endpoint) {
                failure.request = Self.summary(of: request)
            }
            throw failure
        }
    }

    /// The limit on each response head of a call to `endpoint`: the endpoint's own ``Endpoint/timeout`` when it sets
    /// one (a long poll that answers late says so there), else ``Configuration/responseHeadTimeout``.
    func headTimeout<E: Endpoint>(for endpoint: E) -> Duration? {
        endpoint.timeout ?? configuration.responseHeadTimeout
    }

    /// Runs the middleware chain around the transport, holding `permit` (the call's slot of the client's
    /// concurrency limit, see ``acquireSlot(for:)``) until the response body has been read, and with `context` as
    /// ``CallContext/current``. Innermost, under the middlewares, each hop of a redirect is followed by the client's
    /// ``RedirectPolicy``, each response head is awaited within ``Configuration/responseHeadTimeout`` and each
    /// response body is decoded by its ``ResponseDecompression``.
    func run(
        _ request: HTTPRequest,
        body: HTTPBody?,
        context: CallContext,
        permit: ConcurrencyLimiter.Permit?,
        headTimeout: Duration?
    ) async throws(ParleyError) -> (HTTPResponse, HTTPBody?) {
        do {
            let (response, responseBody) = try await Self.typed {
                try await CallContext.$current.withValue(context) {
                    try await RequestTracing.bind(for: self.middlewares) { tracing in
                        try await self.chain(
                            request,
                            body: body,
                            operationID: context.endpointName,
                            tracing: tracing,
                            headTimeout: headTimeout
                        )
                    }
                }
            }
            guard let permit else { return (response, responseBody) }
            // The slot is held until the body has been read to its end or dropped.
            return (response, ConcurrencyLimiter.holding(permit, until: responseBody))
        } catch {
            permit?.release()
            throw error
        }
    }

    /// The base URL handed to the transport with `request`: the request's own origin (scheme and authority, no
    /// path), since its path is already absolute.
    ///
    /// Parley's transports read the request's scheme and authority. OpenAPI transports (swift-openapi-async-http-client,
    /// swift-openapi-urlsession) build the URL as base URL + path and ignore them: given the client's base URL, a
    /// path prefix would come twice, and a redirect to another origin would go back to the first.
    static func transportBaseURL(for request: HTTPRequest, base: BaseURL?, fallback: URL) -> URL {
        guard let scheme = request.scheme, let authority = request.authority else { return fallback }
        if let base, let origin = base.origin, base.scheme == scheme, base.authority == authority { return origin }
        return URL(string: scheme + "://" + authority) ?? fallback
    }

    /// The middlewares, outermost first, around the redirect follower, the decompression and the transport;
    /// with `tracing`, each request handed to the transport gets a span of its own.
    private func chain(
        _ request: HTTPRequest,
        body: HTTPBody?,
        operationID: String,
        tracing: RequestTracing?,
        headTimeout: Duration?
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let transport = self.transport
        let decompression = configuration.decompression
        let base = try? self.base.get()
        let headDeadline = headTimeout.map { HeadDeadline(limit: $0) }
        let send: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?) = { request, body, url in
            let request = decompression?.prepare(request) ?? request
            let url = Self.transportBaseURL(for: request, base: base, fallback: url)
            try HeaderInjection.check(request)
            let response: HTTPResponse
            let responseBody: HTTPBody?
            do {
                if let headDeadline {
                    (response, responseBody) = try await headDeadline.send(request, body: body) { request, body in
                        try await transport.send(request, body: body, baseURL: url, operationID: operationID)
                    }
                } else {
                    (response, responseBody) = try await transport.send(request, body: body, baseURL: url, operationID: operationID)
                }
            } catch {
                throw Self.transportFailure(error, request: request)
            }
            guard let decompression else { return (response, responseBody) }
            return try decompression.decode(response, body: responseBody)
        }
        let hop: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
        if let tracing {
            hop = { request, body, url in try await tracing.send(request, body: body, baseURL: url, hop: send) }
        } else {
            hop = send
        }
        let redirects = RedirectFollower(policy: configuration.redirects)
        if middlewares.isEmpty {
            return try await redirects.send(request, body: body, baseURL: baseURL, hop: hop)
        }
        var next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?) = { request, body, url in
            try await redirects.send(request, body: body, baseURL: url, hop: hop)
        }
        for middleware in middlewares.reversed() {
            let downstream = next
            next = { request, body, url in
                do {
                    return try await middleware.intercept(
                        request, body: body, baseURL: url, operationID: operationID, next: downstream
                    )
                } catch {
                    // Downstream failures are already ParleyErrors; anything else is this middleware's own.
                    throw ParleyError.wrapping(
                        error, as: .middleware, "The middleware \(type(of: middleware)) failed: \(error)"
                    )
                }
            }
        }
        return try await next(request, body, baseURL)
    }

    /// A transport's failure as a `ParleyError` (``ParleyError/Kind/cancelled`` when the task was cancelled),
    /// with the user info of `request`'s URL, if it has any, scrubbed out of it.
    static func transportFailure(_ error: any Error, request: HTTPRequest? = nil) -> ParleyError {
        let failure: ParleyError
        if Task.isCancelled, !(error is ParleyError) {
            failure = ParleyError(.cancelled, "The call was cancelled while in the transport.", underlying: error)
        } else {
            failure = ParleyError.wrapping(error, as: .transport, "The transport failed: \(error)")
        }
        guard let request else { return failure }
        let secrets = RequestURLText.userInfoSecrets(request.absoluteURLString(baseURL: nil))
        return secrets.isEmpty ? failure : Redaction(secrets).scrub(failure)
    }

    /// Runs `body`, whose errors are all ParleyErrors by construction of the chain, with a typed throw.
    private static func typed<T>(_ body: () async throws -> T) async throws(ParleyError) -> T {
        do {
            return try await body()
        } catch {
            throw ParleyError.wrapping(error, as: .middleware, "A middleware failed: \(error)")
        }
    }

    static func summary(of request: HTTPRequest) -> ParleyError.RequestSummary {
        ParleyError.RequestSummary(
            method: request.method,
            url: RequestURLText.redactingUserInfo(request.absoluteURLString(baseURL: nil))
        )
    }
}
