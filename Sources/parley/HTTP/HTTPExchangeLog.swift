import Foundation
import Parley

/// `--verbose`: writes each attempt's request (head and body) and the response head on standard error, with the
/// credentials of `Authorization` and `Proxy-Authorization` replaced by `<redacted>`.
///
/// Installed as the innermost middleware, so it shows the fields the auth middleware added and every attempt a
/// retry makes. Redirects are followed below the middlewares: it shows the first request and the final response.
struct HTTPExchangeLog: ClientMiddleware {
    /// The request body as built from the items (the `HTTPBody` itself is left for the transport to read).
    let requestBody: Data?
    /// Whether the response head is written too (not for HEAD, whose head goes to standard output).
    let showsResponse: Bool
    /// Where the text goes.
    let write: @Sendable (String) -> Void

    /// Header fields whose values are credentials.
    private static let credentialFields: Set<HTTPField.Name> = [.authorization, .proxyAuthorization]

    /// Writes the request, passes it on and writes the response head.
    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        write(Self.describe(request, body: requestBody))
        let (response, responseBody) = try await next(request, body, baseURL)
        if showsResponse { write(Self.describe(response)) }
        return (response, responseBody)
    }

    /// `GET /path?query`, `Host`, the header fields (credentials redacted), a blank line, and the body as text (or
    /// its size when it is not UTF-8) followed by a blank line.
    static func describe(_ request: HTTPRequest, body: Data?) -> String {
        var text = "\(request.method.rawValue) \(request.path ?? "/")\n"
        if let authority = request.authority { text += "Host: \(authority)\n" }
        for field in request.headerFields {
            text += "\(field.name.rawName): \(redacted(field))\n"
        }
        if let body, request.headerFields[.contentLength] == nil { text += "Content-Length: \(body.count)\n" }
        text += "\n"
        if let body, !body.isEmpty {
            text += String(validating: body, as: UTF8.self) ?? "<\(body.count) bytes, not UTF-8 text>"
            text += "\n\n"
        }
        return text
    }

    /// The status line and header fields, then a blank line.
    static func describe(_ response: HTTPResponse) -> String {
        var text = "\(response.status.code) \(response.status.reasonPhrase)\n"
        for field in response.headerFields {
            text += "\(field.name.rawName): \(field.value)\n"
        }
        return text + "\n"
    }

    /// The value of `field`, or for a credential its scheme and `<redacted>`: `Basic <redacted>`.
    private static func redacted(_ field: HTTPField) -> String {
        guard credentialFields.contains(field.name) else { return field.value }
        guard let space = field.value.firstIndex(of: " ") else { return "<redacted>" }
        return field.value[..<space] + " <redacted>"
    }
}
