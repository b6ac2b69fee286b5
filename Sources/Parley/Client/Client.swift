public import OpenAPIRuntime

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Sends typed ``Endpoint``s through a middleware chain and a transport, and decodes the answers.
///
/// A `Client` is a value: cheap to copy and safe to share between tasks. It holds a base URL, default
/// headers, middlewares (any `ClientMiddleware`, in order on the way out, in reverse on the way back),
/// a transport (any `ClientTransport`) and a ``Configuration``. The order in which a call passes them is fixed, and
/// written down in one place: the Architecture article.
///
/// ```swift
/// let client = Client(baseURL: url, transport: transport, headers: ["User-Agent": "my-app/1.0"])
/// let user = try await client.send(GetUser(id: 1))
/// ```
public struct Client: Sendable {
    /// The base URL every endpoint path is appended to.
    public let baseURL: URL
    /// The transport that moves the bytes.
    public let transport: any ClientTransport
    /// The middlewares, outermost first. Each sees a call once, before redirects are followed: a retry or an auth
    /// middleware sends the call down again from its place.
    public let middlewares: [any ClientMiddleware]
    /// The request middlewares, outermost first: under the redirects, each sees every request the client hands to the
    /// transport (every attempt of a retry, every hop of a redirect, every replay after a token refresh).
    public let requestMiddlewares: [any ClientMiddleware]
    /// Settings: default headers, coders, validation, timeout, limits.
    public let configuration: Configuration
    /// Holds calls beyond ``Configuration/maxConcurrentRequests``; shared by the copies of this client.
    package let limiter: ConcurrencyLimiter?
    /// The stages of every call, composed once.
    let pipeline: Pipeline

    /// A client for `baseURL` on `transport`.
    ///
    /// - Parameters:
    ///   - baseURL: `http` or `https` URL with a host, optionally a path prefix (`https://api.example.com/v2`).
    ///     A bad base URL does not trap: every call fails with ``ParleyError/Kind/invalidRequest``.
    ///   - transport: the transport, such as `AsyncHTTPClientTransport` or `URLSessionTransport`.
    ///   - headers: default header fields, added to ``Configuration/headers``; an endpoint's field of the
    ///     same name overrides them.
    ///   - middlewares: the middleware chain, outermost first; each middleware sees each call once.
    ///   - requestMiddlewares: middlewares that see each request sent (every attempt and redirect hop), outermost
    ///     first, under the redirects and `middlewares`.
    ///   - configuration: everything else.
    public init(
        baseURL: URL,
        transport: any ClientTransport,
        headers: Headers = [:],
        middlewares: [any ClientMiddleware] = [],
        requestMiddlewares: [any ClientMiddleware] = [],
        configuration: Configuration = Configuration()
    ) {
        var configuration = configuration
        configuration.headers = configuration.headers.merging(headers)
        self.baseURL = baseURL
        self.transport = transport
        self.middlewares = middlewares
        self.requestMiddlewares = requestMiddlewares
        self.configuration = configuration
        let base = Result { () throws(ParleyError) in try BaseURL(baseURL) }
        let limiter = configuration.maxConcurrentRequests.map { ConcurrencyLimiter(limit: $0) }
        self.limiter = limiter
        self.pipeline = Pipeline(
            baseURL: baseURL,
            base: base,
            transport: transport,
            middlewares: middlewares,
            requestMiddlewares: requestMiddlewares,
            limiter: limiter,
            configuration: configuration
        )
    }

    /// Shuts down the transport if it owns resources (a transport that created its own HTTP client).
    /// A transport built around a client you injected is left running.
    public func shutdown() async throws {
        if let transport = transport as? any ShutdownTransport {
            try await transport.shutdown()
        }
    }
}

/// A transport that owns resources and must be shut down (``Client/shutdown()`` calls it).
public protocol ShutdownTransport: ClientTransport {
    /// Releases the transport's resources. Calls made afterwards fail.
    func shutdown() async throws
}
