import HTTPTypes
import OpenAPIRuntime

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Pipeline {
    /// Builds the wire request for `endpoint` on `head` (``makeRequestHead(_:)``): merged and validated headers,
    /// `extraHeaders` where the endpoint sets no field of that name, the encoded body (`body`, when given, replaces
    /// the endpoint's own). Out of line: its work lives on the thread's stack, not in the async frame of each call.
    @inline(never)
    func makeRequest<E: Endpoint>(
        _ endpoint: E,
        head: HTTPRequest,
        body: RequestBody? = nil,
        extraHeaders: HTTPFields = [:]
    ) throws(ParleyError) -> (HTTPRequest, HTTPBody?) {
        var request = head
        request.headerFields = try makeRequestFields(endpoint, extraHeaders: extraHeaders)
        let made: (body: HTTPBody, contentType: String?)?
        do {
            made = try (body ?? endpoint.body).make(encoder: configuration.jsonEncoder)
        } catch let error as ParleyError {
            // A file that cannot be read, a multipart form that cannot be built: the body says what is wrong.
            throw error
        } catch {
            throw ParleyError(
                .encoding,
                "The body of \(endpoint.name) could not be encoded: \(error). Nothing was sent.",
                underlying: error
            )
        }
        guard let made else { return (request, nil) }
        if let contentType = made.contentType, request.headerFields[.contentType] == nil {
            request.headerFields[.contentType] = contentType
        }
        return (request, made.body)
    }

    /// The header fields of `endpoint`'s request but those its body brings (`Content-Type`): the client's merged with
    /// the endpoint's and validated, and `extraHeaders` where the endpoint sets no field of that name.
    func makeRequestFields<E: Endpoint>(_ endpoint: E, extraHeaders: HTTPFields = [:]) throws(ParleyError) -> HTTPFields {
        var fields = try configuration.headers.merging(endpoint.headers).httpFields()
        for field in extraHeaders where fields[field.name] == nil {
            fields.append(field)
        }
        return fields
    }

    /// The method and URL parts of `endpoint`'s request, without header fields or body.
    func makeRequestHead<E: Endpoint>(_ endpoint: E) throws(ParleyError) -> HTTPRequest {
        let base = try base.get()
        let endpointPath = endpoint.path
        if let segment = endpointPath.dotSegment {
            throw ParleyError(
                .invalidRequest,
                "The path of \(endpoint.name) has a segment that reads as \(String(reflecting: segment)) once decoded, "
                    + "which a server may resolve to another folder; refusing to send it. Check the interpolated values."
            )
        }
        let encodedPath = endpointPath.encoded
        var path = base.path
        if encodedPath.isEmpty {
            if path.isEmpty { path = "/" }
        } else {
            if !encodedPath.hasPrefix("/") { path.append("/") }
            path.append(encodedPath)
        }
        let query = endpoint.query
        if !query.isEmpty {
            path.append("?")
            query.appendEncoded(to: &path, spaceAsPlus: false)
        }
        return HTTPRequest(method: endpoint.method, scheme: base.scheme, authority: base.authority, path: path)
    }
}
