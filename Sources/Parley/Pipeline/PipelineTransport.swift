package import HTTPTypes
package import OpenAPIRuntime

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// What the pipeline's transport stage (stage 9) hands every request to: the one seam between Parley's stages and a
/// transport. A plain `ClientTransport` is adapted to it once, when the client is made (``adapted(_:)``); Parley's
/// AsyncHTTPClient transport speaks it itself.
///
/// It is handed the request, its body and the call's scope, and must:
/// - bound the wait for the response head by ``CallScope/headTimeout``, on the one clock of ``HeadDeadline`` (from the
///   moment it is handed the request, or, for a body it does not send with the head, from when it has taken the body's
///   last byte), failing with ``HeadDeadline/expired(_:)``;
/// - hand back the body as it has it: streamed, or, when ``CallScope/whole`` is set (the call reads the body whole
///   anyway), read whole within those limits where its bytes arrive.
///
/// A buffered call and a streamed call pass the same stages; they differ only in the storage they carry up.
package protocol PipelineTransport: Sendable {
    /// Sends `request` and returns the response head with its body.
    ///
    /// Fails as `ClientTransport.send` does, with ``HeadDeadline/expired(_:)`` when the head is late, and with
    /// ``WholeResponseLimits/bodyExpired(_:received:)`` when a body read whole is. A body read whole that is longer
    /// than ``WholeResponseLimits/maxBytes`` does not fail here: it comes back as
    /// ``ResponseBody/Storage/failed(excerpt:error:)``, so that an unacceptable status still fails as one, with its
    /// excerpt.
    func send(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        scope: CallScope
    ) async throws -> (HTTPResponse, ResponseBody.Storage)
}

/// `transport` as the pipeline's transport: itself when it speaks ``PipelineTransport``, else adapted (its head bounded
/// by a ``HeadDeadline``, its body streamed).
func adapted(_ transport: any ClientTransport) -> any PipelineTransport {
    (transport as? any PipelineTransport) ?? StreamingTransport(base: transport)
}

/// A plain `ClientTransport` as a ``PipelineTransport``: the head bounded by a ``HeadDeadline``, the body streamed.
struct StreamingTransport: PipelineTransport {
    let base: any ClientTransport

    func send(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        scope: CallScope
    ) async throws -> (HTTPResponse, ResponseBody.Storage) {
        let operationID = scope.operationID
        guard let limit = scope.headTimeout else {
            let (response, responseBody) = try await base.send(request, body: body, baseURL: baseURL, operationID: operationID)
            return (response, .streaming(responseBody))
        }
        let (response, responseBody) = try await HeadDeadline(limit: limit).send(request, body: body) { request, body in
            try await base.send(request, body: body, baseURL: baseURL, operationID: operationID)
        }
        return (response, .streaming(responseBody))
    }
}

/// What bounds a response read whole by a ``PipelineTransport`` (``CallScope/whole``).
package struct WholeResponseLimits: Sendable {
    /// The wait for the whole body, from its head (``Client/Configuration/responseBodyTimeout``).
    package var body: Duration?
    /// The most body bytes kept (``Client/Configuration/maxResponseBodySize``).
    package var maxBytes: Int
    /// The status codes the call accepts: a body over ``maxBytes`` stops being read at once under one of them (the
    /// call fails with ``ParleyError/Kind/bodyTooLarge``), and after its first ``ParleyError/excerptLimit`` bytes
    /// under any other (the call fails with ``ParleyError/Kind/unacceptableStatus`` and that excerpt).
    package var acceptable: StatusCodes

    package init(body: Duration?, maxBytes: Int, acceptable: StatusCodes) {
        self.body = body
        self.maxBytes = maxBytes
        self.acceptable = acceptable
    }

    /// The error of a body that did not arrive in full within `limit` of its head (``body``), `received` bytes in.
    package static func bodyExpired(_ limit: Duration, received: Int) -> ParleyError {
        ParleyError(
            .timeout,
            "The response body did not arrive in full within \(limit) of its head "
                + "(Client.Configuration.responseBodyTimeout): \(received) bytes came, too slowly. Raise the "
                + "limit, or set a timeout on the endpoint or the client, if the server is legitimately this slow."
        )
    }

    /// The storage of a body read whole that was longer than ``maxBytes``: its first bytes (at most
    /// ``ParleyError/excerptLimit``; none when the status is an acceptable one), and the length it declared if it did.
    package func tooLarge(excerpt: Data, declared: Int64?) -> ResponseBody.Storage {
        .failed(excerpt: excerpt, error: ResponseBody.tooLarge(maxBytes, declared: declared))
    }
}
