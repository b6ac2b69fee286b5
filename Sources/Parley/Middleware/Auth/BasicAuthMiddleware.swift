public import OpenAPIRuntime

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Sends `Authorization: Basic base64(username:password)` (RFC 7617, UTF-8) with every request.
///
/// ```swift
/// let client = Client(baseURL: api, middlewares: [.basicAuth(username: "ada", password: secret)])
/// ```
///
/// A username containing `:` or a control character, or a password containing a control character, cannot be
/// sent: every request then fails with ``ParleyError/Kind/invalidRequest`` before anything is sent (the message
/// never shows the password). Errors from downstream have the password and the encoded credentials scrubbed
/// (`<redacted>`). An existing `Authorization` header on the request is replaced. The header never follows a redirect
/// to another origin (``OriginBoundCredentials``).
public struct BasicAuthMiddleware: ClientMiddleware {
    /// The header value, or why the credentials cannot be sent.
    private let authorization: Result<String, ParleyError>
    private let redaction: Redaction

    /// A middleware sending `username` and `password`.
    public init(username: String, password: String) {
        let encoded = Data("\(username):\(password)".utf8).base64EncodedString()
        redaction = Redaction([password, encoded, "\(username):\(password)"])
        if username.contains(":") {
            authorization = .failure(
                ParleyError(
                    .invalidRequest,
                    "The Basic authentication username contains ':', which RFC 7617 does not allow (the colon separates "
                        + "it from the password). Use a username without ':'."
                )
            )
        } else if username.unicodeScalars.contains(where: Self.isControl) {
            authorization = .failure(
                ParleyError(.invalidRequest, "The Basic authentication username contains a control character. Remove it.")
            )
        } else if password.unicodeScalars.contains(where: Self.isControl) {
            authorization = .failure(
                ParleyError(.invalidRequest, "The Basic authentication password contains a control character. Remove it.")
            )
        } else {
            authorization = .success("Basic " + encoded)
        }
    }

    /// Adds the `Authorization` header.
    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[.authorization] = try authorization.get()
        do {
            return try await OriginBoundCredentials.binding(header: .authorization) { [request] in
                try await next(request, body, baseURL)
            }
        } catch {
            throw redaction.scrub(error)
        }
    }

    /// RFC 5234 CTL: U+0000–U+001F and U+007F (RFC 7617 forbids them in user-id and password).
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || scalar.value == 0x7F
    }
}

extension ClientMiddleware where Self == BasicAuthMiddleware {
    /// A ``BasicAuthMiddleware`` sending `username` and `password`.
    public static func basicAuth(username: String, password: String) -> BasicAuthMiddleware {
        BasicAuthMiddleware(username: username, password: password)
    }
}
