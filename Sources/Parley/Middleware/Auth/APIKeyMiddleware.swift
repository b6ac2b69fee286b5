public import OpenAPIRuntime

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Sends an API key with every request, in a header field or a query item.
///
/// ```swift
/// let client = Client(baseURL: api, middlewares: [.apiKey(key)])                        // X-API-Key: <key>
/// let renamed = Client(baseURL: api, middlewares: [.apiKey(key, header: "Api-Token")])
/// let inQuery = Client(baseURL: api, middlewares: [.apiKey(key, queryItem: "api_key")])  // …?api_key=<percent-encoded key>
/// ```
///
/// The key is added after the client built the request, so the request summary in a ``ParleyError`` (made from
/// the request as the endpoint built it) does not show it, and errors from downstream have the key (as is and
/// percent-encoded) scrubbed (`<redacted>`). A header name that is not a valid field name makes every request fail
/// with ``ParleyError/Kind/invalidRequest`` before anything is sent. A header field of the same name is replaced;
/// a query item is appended after the endpoint's own. The key never follows a redirect to another origin (scheme, host,
/// port): the header field, or the query item in the new `Location`, is removed (``OriginBoundCredentials``).
public struct APIKeyMiddleware: ClientMiddleware {
    /// Where the key goes.
    enum Placement: Sendable {
        case header(String)
        case queryItem(String)
    }

    /// The default header field name: `X-API-Key`.
    public static let defaultHeaderName = "X-API-Key"

    private let key: String
    private let placement: Placement
    private let redaction: Redaction

    init(key: String, placement: Placement) {
        self.key = key
        self.placement = placement
        redaction = Redaction([key, Query([QueryItem(key, nil)]).encoded])
    }

    /// A middleware sending `key` in the header field `header`.
    public init(_ key: String, header: String = Self.defaultHeaderName) {
        self.init(key: key, placement: .header(header))
    }

    /// A middleware sending `key` as the query item `queryItem`.
    public init(_ key: String, queryItem: String) {
        self.init(key: key, placement: .queryItem(queryItem))
    }

    /// Adds the key.
    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        do {
            // The key is a credential of this origin: a redirect elsewhere drops it (OriginBoundCredentials).
            switch placement {
            case .header(let name):
                guard let field = HTTPField.Name(name) else {
                    throw ParleyError(
                        .invalidRequest,
                        "The API key header name '\(name)' is not a valid HTTP field name. Use a token such as X-API-Key."
                    )
                }
                guard HTTPField.isValidValue(key) else {
                    // HTTPFields would turn a CR or LF into a space and send the rest: a header injected through the key.
                    throw ParleyError(
                        .invalidRequest,
                        "The API key holds a character a header value may not hold (CR, LF, NUL or another control character, "
                            + "or whitespace at its start or end); refusing to send it. Nothing was sent."
                    )
                }
                request.headerFields[field] = key
                return try await OriginBoundCredentials.binding(header: field) { [request] in
                    try await next(request, body, baseURL)
                }
            case .queryItem(let name):
                let item = Query([QueryItem(name, key)]).encoded
                let path = request.path ?? "/"
                request.path = path + (path.contains("?") ? (path.hasSuffix("?") || path.hasSuffix("&") ? "" : "&") : "?") + item
                return try await OriginBoundCredentials.binding(queryItem: name) { [request] in
                    try await next(request, body, baseURL)
                }
            }
        } catch {
            throw redaction.scrub(error)
        }
    }
}

extension ClientMiddleware where Self == APIKeyMiddleware {
    /// An ``APIKeyMiddleware`` sending `key` in the header field `header` (default `X-API-Key`).
    public static func apiKey(_ key: String, header: String = APIKeyMiddleware.defaultHeaderName) -> APIKeyMiddleware {
        APIKeyMiddleware(key, header: header)
    }

    /// An ``APIKeyMiddleware`` sending `key` as the query item `queryItem`, percent-encoded.
    public static func apiKey(_ key: String, queryItem: String) -> APIKeyMiddleware {
        APIKeyMiddleware(key, queryItem: queryItem)
    }
}
