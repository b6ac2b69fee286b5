#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
public import HTTPTypes
import OpenAPIRuntime

extension Client {
    /// Sends `endpoint` and returns its decoded response.
    ///
    /// Cancelling the calling task cancels the request in the transport and fails with
    /// ``ParleyError/Kind/cancelled``.
    public func send<E: Endpoint>(_ endpoint: E) async throws(ParleyError) -> E.Response {
        try await response(for: endpoint).value
    }

    /// Sends `endpoint` and returns its decoded response together with the response head (status, headers).
    public func response<E: Endpoint>(
        for endpoint: E
    ) async throws(ParleyError) -> (value: E.Response, response: HTTPResponse) {
        try await response(for: endpoint, body: nil, progress: nil)
    }

    /// ``response(for:)`` with `body` instead of the endpoint's own (when not `nil`), its bytes reported to `progress`.
    func response<E: Endpoint>(
        for endpoint: E,
        body: RequestBody?,
        progress: ProgressReporter?
    ) async throws(ParleyError) -> (value: E.Response, response: HTTPResponse) {
        guard let timeout = endpoint.timeout ?? configuration.timeout else {
            return try await perform(endpoint, body: body, progress: progress)
        }
        do {
            return try await Self.withTimeout(timeout) { () throws(ParleyError) in
                try await self.perform(endpoint, body: body, progress: progress)
            }
        } catch {
            var failure = error
            if failure.request == nil, let request = try? makeRequestHead(endpoint) {
                failure.request = Self.summary(of: request)
            }
            throw failure
        }
    }

    /// Builds, sends, validates and decodes; every failure comes out as a `ParleyError` with the request attached.
    func perform<E: Endpoint>(
        _ endpoint: E,
        body override: RequestBody? = nil,
        progress: ProgressReporter? = nil
    ) async throws(ParleyError) -> (value: E.Response, response: HTTPResponse) {
        var (request, body) = try makeRequest(endpoint, body: override)
        if let progress, let unwrapped = body { body = CountingBody.wrap(unwrapped, reporter: progress) }
        do {
            let (response, responseBody) = try await run(request, body: body, operationID: endpoint.name)
            let value = try await decode(endpoint, response: response, body: responseBody)
            return (value, response)
        } catch {
            var error = error
            if error.kind != .timeout, error.kind != .cancelled, Task.isCancelled {
                error = ParleyError(.cancelled, "The call was cancelled before it completed.", underlying: error)
            }
            if error.request == nil { error.request = Self.summary(of: request) }
            throw error
        }
    }

    /// Runs the middleware chain around the transport.
    func run(
        _ request: HTTPRequest,
        body: HTTPBody?,
        operationID: String
    ) async throws(ParleyError) -> (HTTPResponse, HTTPBody?) {
        let transport = self.transport
        if middlewares.isEmpty {
            // No chain to build: call the transport directly (no closure allocated per call).
            do {
                return try await transport.send(request, body: body, baseURL: baseURL, operationID: operationID)
            } catch {
                throw Self.transportFailure(error)
            }
        }
        var next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?) = { request, body, url in
            do {
                return try await transport.send(request, body: body, baseURL: url, operationID: operationID)
            } catch {
                throw Self.transportFailure(error)
            }
        }
        for middleware in middlewares.reversed() {
            let downstream = next
            next = { request, body, url in
                do {
                    return try await middleware.intercept(
                        request, body: body, baseURL: url, operationID: operationID, next: downstream
                    )
                } catch {
                    // Downstream failures are already ParleyErrors; anything else is this middleware's own.
                    throw ParleyError.wrapping(
                        error, as: .middleware, "The middleware \(type(of: middleware)) failed: \(error)"
                    )
                }
            }
        }
        return try await Self.typed { try await next(request, body, baseURL) }
    }

    /// A transport's failure as a `ParleyError` (``ParleyError/Kind/cancelled`` when the task was cancelled).
    static func transportFailure(_ error: any Error) -> ParleyError {
        if Task.isCancelled, !(error is ParleyError) {
            return ParleyError(.cancelled, "The call was cancelled while in the transport.", underlying: error)
        }
        return ParleyError.wrapping(error, as: .transport, "The transport failed: \(error)")
    }

    /// Runs `body`, whose errors are all ParleyErrors by construction of the chain, with a typed throw.
    private static func typed<T>(_ body: () async throws -> T) async throws(ParleyError) -> T {
        do {
            return try await body()
        } catch {
            throw ParleyError.wrapping(error, as: .middleware, "A middleware failed: \(error)")
        }
    }

    static func summary(of request: HTTPRequest) -> ParleyError.RequestSummary {
        ParleyError.RequestSummary(method: request.method, url: request.absoluteURLString(baseURL: nil))
    }
}
