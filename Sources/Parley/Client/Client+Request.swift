#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes
import OpenAPIRuntime

extension Client {
    /// Builds the wire request for `endpoint`: URL parts, merged and validated headers, encoded body.
    func makeRequest<E: Endpoint>(_ endpoint: E) throws(ParleyError) -> (HTTPRequest, HTTPBody?) {
        let base = try base.get()
        let endpointPath = endpoint.path.encoded
        var path = base.path
        if endpointPath.isEmpty {
            if path.isEmpty { path = "/" }
        } else {
            if !endpointPath.hasPrefix("/") { path.append("/") }
            path.append(endpointPath)
        }
        let query = endpoint.query
        if !query.isEmpty {
            path.append("?")
            query.appendEncoded(to: &path, spaceAsPlus: false)
        }
        var request = HTTPRequest(method: endpoint.method, scheme: base.scheme, authority: base.authority, path: path)
        do {
            request.headerFields = try configuration.headers.merging(endpoint.headers).httpFields()
        } catch {
            var failure = error
            failure.request = Self.summary(of: request)
            throw failure
        }
        let made: (body: HTTPBody, contentType: String?)?
        do {
            made = try endpoint.body.make(encoder: configuration.jsonEncoder)
        } catch {
            var failure = ParleyError(
                .encoding,
                "The body of \(endpoint.name) could not be encoded: \(error). Nothing was sent.",
                underlying: error
            )
            failure.request = Self.summary(of: request)
            throw failure
        }
        guard let made else { return (request, nil) }
        if let contentType = made.contentType, request.headerFields[.contentType] == nil {
            request.headerFields[.contentType] = contentType
        }
        return (request, made.body)
    }
}
