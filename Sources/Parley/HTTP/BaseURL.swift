import HTTPTypes

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A base URL taken apart once, so no call parses a URL again.
struct BaseURL: Sendable {
    let scheme: String
    let authority: String
    /// Percent-encoded path prefix without a trailing `/` (empty for the root).
    let path: String
    /// `scheme://authority`, without the path: the base URL a transport is given (see
    /// ``transportURL(for:base:fallback:)``).
    let origin: URL?

    /// The schemes of a base URL: `http`, `https`, and `http+unix`/`https+unix` (a Unix domain socket, its path
    /// percent-encoded as the host, as AsyncHTTPClient reads it: `http+unix://%2Fvar%2Frun%2Fdocker.sock`).
    static let schemes: Set<String> = ["http", "https", "http+unix", "https+unix"]

    init(_ url: URL) throws(ParleyError) {
        func invalid(_ reason: String) -> ParleyError {
            ParleyError(
                .invalidRequest,
                "The base URL \(String(reflecting: RequestTarget(url).redacted)) \(reason)."
            )
        }
        guard let scheme = url.scheme?.lowercased(), Self.schemes.contains(scheme) else {
            throw invalid(
                "has no http or https scheme; write it as https://host/path (or http+unix://%2Fpath%2Fto.sock/path for a "
                    + "Unix domain socket, on AsyncHTTPClient)"
            )
        }
        guard let host = url.host(percentEncoded: true), !host.isEmpty else {
            throw invalid("has no host")
        }
        guard url.query(percentEncoded: true) == nil, url.fragment(percentEncoded: true) == nil else {
            throw invalid("has a query or fragment; put query items on the endpoint instead")
        }
        guard url.user(percentEncoded: true) == nil else {
            throw invalid(
                "carries credentials (user info, shown redacted); send them with an auth middleware such as "
                    + ".basicAuth(username:password:) instead, and never in the URL"
            )
        }
        self.scheme = scheme
        self.authority = RequestTarget.authority(host: host, port: url.port)
        var path = url.path(percentEncoded: true)
        while path.hasSuffix("/") { path.removeLast() }
        self.path = path
        self.origin = URL(string: scheme + "://" + self.authority)
    }

    /// The base URL handed to the transport with `request`: the request's own origin (scheme and authority, no
    /// path), since its path is already absolute.
    ///
    /// Parley's transports read the request's scheme and authority. OpenAPI transports (swift-openapi-async-http-client,
    /// swift-openapi-urlsession) build the URL as base URL + path and ignore them: given the client's base URL, a
    /// path prefix would come twice, and a redirect to another origin would go back to the first.
    static func transportURL(for request: HTTPRequest, base: BaseURL?, fallback: URL) -> URL {
        guard let scheme = request.scheme, let authority = request.authority else { return fallback }
        if let base, let origin = base.origin, base.scheme == scheme, base.authority == authority { return origin }
        return URL(string: scheme + "://" + authority) ?? fallback
    }
}
