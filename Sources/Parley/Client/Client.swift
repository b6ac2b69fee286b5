#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import OpenAPIRuntime

/// Sends typed ``Endpoint``s through a middleware chain and a transport, and decodes the answers.
///
/// A `Client` is a value: cheap to copy and safe to share between tasks. It holds a base URL, default
/// headers, middlewares (any `ClientMiddleware`, in order on the way out, in reverse on the way back),
/// a transport (any `ClientTransport`) and a ``Configuration``.
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
    /// The middlewares, outermost first.
    public let middlewares: [any ClientMiddleware]
    /// Settings: default headers, coders, validation, timeout, limits.
    public let configuration: Configuration
    let base: Result<BaseURL, ParleyError>
    /// Holds calls beyond ``Configuration/maxConcurrentRequests``; shared by the copies of this client.
    package let limiter: ConcurrencyLimiter?

    /// A client for `baseURL` on `transport`.
    ///
    /// - Parameters:
    ///   - baseURL: `http` or `https` URL with a host, optionally a path prefix (`https://api.example.com/v2`).
    ///     A bad base URL does not trap: every call fails with ``ParleyError/Kind/invalidRequest``.
    ///   - transport: the transport, such as `AsyncHTTPClientTransport` or `URLSessionTransport`.
    ///   - headers: default header fields, added to ``Configuration/headers``; an endpoint's field of the
    ///     same name overrides them.
    ///   - middlewares: the middleware chain, outermost first.
    ///   - configuration: everything else.
    public init(
        baseURL: URL,
        transport: any ClientTransport,
        headers: Headers = [:],
        middlewares: [any ClientMiddleware] = [],
        configuration: Configuration = Configuration()
    ) {
        var configuration = configuration
        configuration.headers = configuration.headers.merging(headers)
        self.baseURL = baseURL
        self.transport = transport
        self.middlewares = middlewares
        self.configuration = configuration
        self.base = Result { () throws(ParleyError) in try BaseURL(baseURL) }
        self.limiter = configuration.maxConcurrentRequests.map { ConcurrencyLimiter(limit: $0) }
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
