public import AsyncHTTPClient
public import HTTPTypes
import NIOCore
public import OpenAPIRuntime
public import Parley

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// AsyncHTTPClient through proxies: each request goes through the proxy that ``/Parley/ProxySettings`` name for its
/// URL (an HTTP proxy, through a `CONNECT` tunnel, or a SOCKS5 proxy), or direct. (AsyncHTTPClient opens a `CONNECT`
/// tunnel through an HTTP proxy for `http` requests too, so the proxy sees the host and port, not the request.)
/// A proxy that asks for credentials fails the call with ``/Parley/ParleyError/Kind/authentication``.
///
/// ```swift
/// let client = Client(baseURL: api, transport: ProxyingTransport(.environment()))   // as curl reads the environment
/// let socks = Client(baseURL: api, transport: ProxyingTransport(ProxySettings(Proxy(.socks5, host: "127.0.0.1", port: 1080))))
/// ```
///
/// One `HTTPClient` per proxy (and one for direct requests), made with `configuration` and shut down by
/// ``shutdown()``. A proxy's credentials go to the proxy only (`Proxy-Authorization`, or the `CONNECT` request), never
/// to the server, and never into an error or a log: errors name the proxy as ``/Parley/Proxy/description`` shows it.
/// URLSession takes its proxies from its `URLSessionConfiguration` (`connectionProxyDictionary`), not from Parley.
public struct ProxyingTransport: ShutdownTransport {
    /// Where requests go.
    public let settings: ProxySettings
    private let direct: AsyncHTTPClientTransport
    private let proxied: [Proxy: AsyncHTTPClientTransport]

    /// A transport for `settings`, its clients made from `configuration` (its `proxy` is replaced).
    public init(
        _ settings: ProxySettings,
        configuration: HTTPClient.Configuration = AsyncHTTPClientTransport.defaultConfiguration
    ) {
        self.settings = settings
        direct = AsyncHTTPClientTransport(configuration: configuration)
        var proxied: [Proxy: AsyncHTTPClientTransport] = [:]
        for proxy in [settings.http, settings.https, settings.all].compactMap(\.self) where proxied[proxy] == nil {
            var withProxy = configuration
            withProxy.proxy = Self.ahcProxy(proxy)
            proxied[proxy] = AsyncHTTPClientTransport(configuration: withProxy)
        }
        self.proxied = proxied
    }

    /// The proxy, or direct connection, of a request to `url`.
    public func proxy(for url: URL) -> Proxy? {
        settings.proxy(for: url)
    }

    /// Sends the request through its proxy, or direct.
    public func send(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String
    ) async throws -> (HTTPResponse, HTTPBody?) {
        try await route(request, baseURL: baseURL) { transport in
            try await transport.send(request, body: body, baseURL: baseURL, operationID: operationID)
        }
    }

    /// `send` on the transport of the request's proxy (or the direct one), its failures told as the proxy's.
    private func route<Result>(
        _ request: HTTPRequest,
        baseURL: URL,
        send: (AsyncHTTPClientTransport) async throws -> Result
    ) async throws -> Result {
        let target = RequestTarget.of(request, baseURL: baseURL)
        let proxy = settings.proxy(for: target)
        if let problem = settings.problem(for: target) {
            throw ParleyError(.invalidRequest, "The request to \(Self.host(of: target)) was not sent: \(problem).")
        }
        if let proxy, proxy.kind == .socks5, proxy.credentials != nil {
            throw ParleyError(
                .invalidRequest,
                "The SOCKS5 proxy \(proxy) has credentials, which AsyncHTTPClient cannot send (it speaks SOCKS5 without "
                    + "authentication); the request was not sent rather than sent without them."
            )
        }
        guard let proxy, let transport = proxied[proxy] else { return try await send(direct) }
        do {
            return try await send(transport)
        } catch var error as ParleyError {
            switch error.underlying as? HTTPClientError {
            case .proxyAuthenticationRequired?:
                error = ParleyError(
                    .authentication,
                    "The proxy \(proxy) answered 407 Proxy Authentication Required: give it credentials "
                        + "(http://user:password@host:port).",
                    underlying: error.underlying
                )
            case .invalidProxyResponse?:
                error = ParleyError(
                    .transport,
                    "The proxy \(proxy) refused to open a tunnel to \(Self.host(of: target)) (its answer to CONNECT "
                        + "was not 200): wrong credentials, or a host or port it does not allow.",
                    underlying: error.underlying
                )
            default:
                error.message += " (through the proxy \(proxy))"
            }
            throw error
        }
    }

    /// Shuts down every client.
    public func shutdown() async throws {
        try await direct.shutdown()
        for transport in proxied.values { try await transport.shutdown() }
    }

    /// The host of `target` for a message (percent-decoded, without brackets).
    private static func host(of target: RequestTarget) -> String {
        target.host.isEmpty ? "the server" : target.decodedHost
    }

    private static func ahcProxy(_ proxy: Proxy) -> HTTPClient.Configuration.Proxy {
        switch proxy.kind {
        case .http:
            let authorization = proxy.credentials.map { HTTPClient.Authorization.basic(username: $0.user, password: $0.password) }
            return .server(host: proxy.host, port: proxy.port, authorization: authorization)
        case .socks5:
            return .socksServer(host: proxy.host, port: proxy.port)
        }
    }
}

extension ProxyingTransport: PipelineTransport {
    /// Sends the request for Parley's `Client` through its proxy, or direct, as ``AsyncHTTPClientTransport`` does.
    package func send(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        scope: CallScope
    ) async throws -> (HTTPResponse, ResponseBody.Storage) {
        try await route(request, baseURL: baseURL) { transport in
            try await transport.send(request, body: body, baseURL: baseURL, scope: scope)
        }
    }
}
