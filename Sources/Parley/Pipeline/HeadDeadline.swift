package import HTTPTypes
package import OpenAPIRuntime

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// The wait for one response head, bounded by ``Client/Configuration/responseHeadTimeout``.
///
/// The clock starts once the request has been sent: at once without a body, else when the transport has taken the
/// body's last byte (the end of the sequence, or as many bytes as its known length). An upload that takes longer than
/// the limit is thus not cut off; a server that answers before reading the whole body stops the clock as well.
package struct HeadDeadline: Sendable {
    let limit: Duration

    /// `send(request, body)` with the head bounded; the returned body is not (``ByteStream`` bounds its gaps).
    func send(
        _ request: HTTPRequest,
        body: HTTPBody?,
        _ send: @escaping @Sendable (HTTPRequest, HTTPBody?) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let sent = Deadline.Signal()
        let wrapped: HTTPBody?
        if let body, body.length != .known(0) {
            wrapped = body.watched(by: SendingSignal(sent: sent))
        } else {
            wrapped = body
            sent.fire()
        }
        let limit = self.limit
        return try await Deadline.run(
            within: limit,
            startingAt: sent,
            expired: { Self.expired(limit) },
            { try await send(request, wrapped) }
        )
    }

    /// The error of a response head that did not arrive within `limit`.
    package static func expired(_ limit: Duration) -> ParleyError {
        ParleyError(
            .timeout,
            "The server did not send the whole response head within \(limit) of receiving the request "
                + "(Client.Configuration.responseHeadTimeout); raise it if the server is legitimately "
                + "this slow, or set it to nil to wait without limit."
        )
    }
}

/// A transport that bounds the wait for a response head by itself (Parley's AsyncHTTPClient transport hands the limit
/// to AsyncHTTPClient's own deadline), sparing the pipeline a timer task per request.
package protocol HeadLimitingTransport: ClientTransport {
    /// Whether this transport bounds the head of `request` itself: the request goes out at once (no body, or one
    /// it sends whole with the head), so a clock started now measures the same as one started when it was sent.
    func boundsHead(of request: HTTPRequest, body: HTTPBody?) -> Bool

    /// Sends the request; fails with ``HeadDeadline/expired(_:)`` when the head has not arrived within `headLimit`.
    func send(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        headLimit: Duration
    ) async throws -> (HTTPResponse, HTTPBody?)
}

/// Fires `sent` once the transport has taken all of a request body (a ``BodyWatcher``).
private struct SendingSignal: BodyWatcher {
    let sent: Deadline.Signal

    /// Bytes still to come when the length is known: a transport may stop asking once it has them all.
    func startReading(of body: HTTPBody) -> Int64? { body.knownLength }

    func willRead(_ remaining: inout Int64?) {
        if remaining == 0 { sent.fire() }
    }

    func didRead(_ chunk: ArraySlice<UInt8>, _ remaining: inout Int64?) {
        guard let left = remaining else { return }
        remaining = left - Int64(chunk.count)
        if left - Int64(chunk.count) <= 0 { sent.fire() }
    }

    func didFinish(_ remaining: inout Int64?) { sent.fire() }
}
