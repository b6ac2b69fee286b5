import HTTPTypes
import Hummingbird
import NIOCore
import Parley

/// Serves the routes that accept any HTTP method: `/echo`, `/echo/**` and `/status/{code}`.
///
/// Implemented as router middleware (rather than routes) so that every method, including
/// non-standard ones, is handled, and so the raw path is matched before any routing.
struct AnyMethodRoutesMiddleware: RouterMiddleware {
    typealias Context = DemoRequestContext

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let target = RequestTarget(request)
        if target.remainder(after: "/echo") != nil {
            var request = request
            let body = try await request.collectBody(upTo: context.maxUploadSize)
            return try DemoResponses.json(EchoPayload(request: request, body: body))
        }
        if let rest = target.remainder(after: "/status"), rest.count > 1, !rest.dropFirst().contains("/") {
            return Self.statusResponse(code: rest.dropFirst(), query: target.queryItems)
        }
        return try await next(request, context)
    }

    /// Builds the `/status/{code}` response.
    static func statusResponse(code text: Substring, query: QueryItems) -> Response {
        guard let code = Int(text), (200...999).contains(code) else {
            return DemoResponses.error("status code must be an integer in 200...999, got '\(text)'", status: .badRequest)
        }
        let status = HTTPResponse.Status(code: code)
        var headers = HTTPFields()
        for header in query.all("header") {
            guard let colon = header.firstIndex(of: ":"),
                let name = HTTPField.Name(String(header[..<colon]))
            else {
                return DemoResponses.error("header must look like 'Name:Value', got '\(header)'", status: .badRequest)
            }
            let value = header[header.index(after: colon)...].drop(while: \.isHTTPWhitespace)
            headers.append(HTTPField(name: name, value: String(value)))
        }
        let noBodyAllowed = code == 204 || code == 304
        let text = noBodyAllowed ? "" : query.first("body") ?? ""
        if let contentType = query.first("contentType") {
            headers[.contentType] = contentType
        } else if !text.isEmpty, headers[.contentType] == nil {
            headers[.contentType] = DemoResponses.textContentType
        }
        if noBodyAllowed {
            var response = Response(status: status, headers: headers, body: ResponseBody())
            response.headers[.contentLength] = nil  // 204/304 carry no body and no length
            return response
        }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
