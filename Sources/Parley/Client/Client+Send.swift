public import HTTPTypes
import OpenAPIRuntime

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Client {
    /// Sends `endpoint` and returns its decoded response.
    ///
    /// Cancelling the calling task cancels the request in the transport and fails with
    /// ``ParleyError/Kind/cancelled``.
    public func send<E: Endpoint>(_ endpoint: E) async throws(ParleyError) -> E.Response {
        try await response(for: endpoint, body: nil, progress: nil).value
    }

    /// Sends `endpoint` and returns its decoded response together with the response head (status, headers).
    public func response<E: Endpoint>(
        for endpoint: E
    ) async throws(ParleyError) -> (value: E.Response, response: HTTPResponse) {
        try await response(for: endpoint, body: nil, progress: nil)
    }

    /// ``response(for:)`` with `body` instead of the endpoint's own (when not `nil`), its bytes reported to `progress`:
    /// the pipeline's call, its response validated and decoded within the call's timeout.
    func response<E: Endpoint>(
        for endpoint: E,
        body: RequestBody?,
        progress: ProgressReporter?
    ) async throws(ParleyError) -> (value: E.Response, response: HTTPResponse) {
        let timeout = endpoint.timeout ?? configuration.timeout
        // Without an overall timeout, the body must still arrive within responseBodyTimeout.
        let bodyLimit = timeout == nil ? configuration.responseBodyTimeout : nil
        let whole =
            readsWhole(endpoint)
            ? WholeResponseLimits(
                body: bodyLimit,
                maxBytes: configuration.maxResponseBodySize,
                acceptable: endpoint.acceptableStatusCodes ?? configuration.acceptableStatusCodes
            ) : nil
        return try await pipeline.execute(endpoint, body: body, progress: progress, timeout: timeout, readingWhole: whole) {
            response,
            storage throws(ParleyError) in
            var storage = storage
            if case .streaming(let body) = storage { storage = .streaming(BodyDeadline.wrap(body, limit: bodyLimit)) }
            let value = try await self.decode(endpoint, response: response, body: storage)
            return (value, response)
        }
    }

    /// The method and URL parts of `endpoint`'s request (``Pipeline/makeRequestHead(_:)``).
    func makeRequestHead<E: Endpoint>(_ endpoint: E) throws(ParleyError) -> HTTPRequest {
        try pipeline.makeRequestHead(endpoint)
    }
}
