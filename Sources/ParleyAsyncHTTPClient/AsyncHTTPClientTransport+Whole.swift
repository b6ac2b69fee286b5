import AsyncHTTPClient
package import HTTPTypes
import NIOCore
import NIOHTTP1
package import OpenAPIRuntime
package import Parley

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

extension AsyncHTTPClientTransport: WholeResponseTransport {
    /// Sends the request and reads its response whole on the connection's event loop (``WholeResponseReader``), for a
    /// buffered call of Parley's `Client`: one hop back to the caller with the head and the body, instead of one per
    /// part. Taken only for a request that goes out at once (``boundsHead(of:body:)``).
    package func sendReadingWhole(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        limits: WholeResponseLimits
    ) async throws -> (HTTPResponse, WholeBody) {
        var payload: ByteBuffer?
        if let body, case .known(let count) = body.length, count > 0 { payload = try await Self.collect(body, count: count) }
        return try await route(request, body: body, baseURL: baseURL, isIdempotent: limits.isIdempotent) { url, host in
            let outgoing: HTTPClient.Request
            do {
                outgoing = try HTTPClient.Request(
                    url: url,
                    method: HTTPMethod(rawValue: request.method.rawValue),
                    headers: Self.headers(of: request, host: host),
                    body: payload.map { .byteBuffer($0) }
                )
            } catch {
                throw Self.translate(error, request: request)
            }
            let answer: WholeResponseReader.Response
            do {
                answer = try await read(outgoing, limits: limits)
            } catch let failure as WholeResponseReader.Failure
                where !failure.afterHead && Self.isStaleConnection(failure.underlying) && !Task.isCancelled
            {
                // A pooled connection the server had closed while idle, nothing of the request written on it: sent
                // again, once, on a new connection (see ``send(_:body:baseURL:operationID:)``).
                do {
                    answer = try await read(outgoing, limits: limits)
                } catch {
                    throw Self.translate(whole: error, request: request)
                }
            } catch {
                throw Self.translate(whole: error, request: request)
            }
            let response = Self.response(status: answer.head.status, headers: answer.head.headers)
            return (response, answer.body)
        }
    }

    /// ``WholeResponseReader/read(_:on:limits:)`` started from an event loop of the client: AsyncHTTPClient then
    /// prefers a connection of that loop and calls the reader there, not on another loop it must wake, and the loop
    /// resumes the call without waking a thread of the cooperative pool. Only this step runs there, AsyncHTTPClient's
    /// own work and the reader's (Parley's bounded stages: the Architecture article's rule); the caller's code resumes
    /// on its own executor.
    func read(_ request: HTTPClient.Request, limits: WholeResponseLimits) async throws -> WholeResponseReader.Response {
        try await withTaskExecutorPreference(loopExecutors.next()) {
            try await WholeResponseReader.read(request, on: client, limits: limits)
        }
    }

    /// A failure of ``WholeResponseReader/read(_:on:limits:)`` as a ``/Parley/ParleyError``.
    static func translate(whole error: any Error, request: HTTPRequest) -> ParleyError {
        guard let failure = error as? WholeResponseReader.Failure else { return translate(error, request: request) }
        return translate(failure.underlying, request: request, afterHead: failure.afterHead)
    }
}
