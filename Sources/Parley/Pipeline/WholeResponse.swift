package import HTTPTypes
package import OpenAPIRuntime

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// A transport that can read a response whole where its bytes arrive (AsyncHTTPClient's event loop), bounded as the
/// pipeline says, and hand it over at once: the buffered calls' fast path (``Pipeline``, "reading whole").
///
/// A call takes it when its response is to be read whole anyway (the endpoint's decoder buffers, or validators need
/// the body), nothing between the transport and the decoder observes the body (no middleware, no cache), and the
/// request goes out at once (``HeadLimitingTransport/boundsHead(of:body:)``). The response body then crosses from the
/// event loop to the caller once, as one `Data`, instead of as an async sequence of chunks, each a hop between threads.
package protocol WholeResponseTransport: HeadLimitingTransport {
    /// Sends `request` and reads its response whole within `limits`.
    ///
    /// Fails as ``ClientTransport/send(_:body:baseURL:operationID:)`` does, with ``HeadDeadline/expired(_:)`` when the
    /// head is late, and with ``WholeResponseLimits/bodyExpired(_:received:)`` when the body is. A body longer than
    /// ``WholeResponseLimits/maxBytes`` does not fail here: it comes back as ``WholeBody/tooLarge(excerpt:declared:)``,
    /// so that an unacceptable status still fails as one, with its excerpt.
    func sendReadingWhole(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        limits: WholeResponseLimits
    ) async throws -> (HTTPResponse, WholeBody)
}

/// What bounds a response read whole (``WholeResponseTransport``).
package struct WholeResponseLimits: Sendable {
    /// The wait for the head, from when the request was handed over (``Client/Configuration/responseHeadTimeout``).
    package var head: Duration?
    /// The wait for the whole body, from its head (``Client/Configuration/responseBodyTimeout``).
    package var body: Duration?
    /// The most body bytes kept (``Client/Configuration/maxResponseBodySize``).
    package var maxBytes: Int
    /// The status codes the call accepts: a body over ``maxBytes`` stops being read at once under one of them (the
    /// call fails with ``ParleyError/Kind/bodyTooLarge``), and after its first ``ParleyError/excerptLimit`` bytes
    /// under any other (the call fails with ``ParleyError/Kind/unacceptableStatus`` and that excerpt).
    package var acceptable: StatusCodes
    /// Whether the request may be sent twice (``CallContext/isIdempotent``), for a transport that resends a request
    /// lost on a connection that closed under it.
    package var isIdempotent: Bool

    package init(head: Duration?, body: Duration?, maxBytes: Int, acceptable: StatusCodes, isIdempotent: Bool) {
        self.head = head
        self.body = body
        self.maxBytes = maxBytes
        self.acceptable = acceptable
        self.isIdempotent = isIdempotent
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
}

/// A response body read whole by a ``WholeResponseTransport``.
package enum WholeBody: Sendable {
    /// The whole body.
    case complete(Data)
    /// A body longer than the limit: its first bytes (at most ``ParleyError/excerptLimit``; none when the status is
    /// an acceptable one), and the length it declared if it declared one. The rest was not read (the connection was
    /// closed).
    case tooLarge(excerpt: Data, declared: Int64?)
}
