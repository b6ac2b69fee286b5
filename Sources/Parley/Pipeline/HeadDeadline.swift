package import HTTPTypes
package import OpenAPIRuntime

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The wait for one response head, bounded by ``Client/Configuration/responseHeadTimeout``: the one head clock of
/// every transport (``PipelineTransport``).
///
/// The clock starts when the transport is handed the request: waiting for a free connection, connecting and the TLS
/// handshake count, as they do for AsyncHTTPClient's `deadline` and URLSession's request timeout. For a request body
/// that the transport streams (rather than sending it with the head), the clock starts instead when the transport has
/// taken the body's last byte (the end of the sequence, or as many bytes as its known length): an upload that takes
/// longer than the limit is thus not cut off. A server that answers before reading the whole body stops the clock.
package struct HeadDeadline: Sendable {
    let limit: Duration

    package init(limit: Duration) {
        self.limit = limit
    }

    /// `send(request, body)` with the head bounded; the returned body is not (``ByteStream`` bounds its gaps).
    package func send(
        _ request: HTTPRequest,
        body: HTTPBody?,
        _ send: @escaping @Sendable (HTTPRequest, HTTPBody?) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let limit = self.limit
        // A body the transport streams starts the clock once taken; without one, it starts now.
        var sent: Deadline.Signal?
        var wrapped = body
        if let body, body.length != .known(0) {
            let signal = Deadline.Signal()
            wrapped = body.watched(by: SendingSignal(sent: signal))
            sent = signal
        }
        return try await Deadline.run(
            within: limit,
            startingAt: sent,
            expired: { Self.expired(limit) },
            { [wrapped] in try await send(request, wrapped) }
        )
    }

    /// The error of a response head that did not arrive within `limit`.
    package static func expired(_ limit: Duration) -> ParleyError {
        ParleyError(
            .timeout,
            "The whole response head did not arrive within \(limit) of the request being handed to the transport "
                + "(Client.Configuration.responseHeadTimeout; waiting for a connection, connecting and the TLS "
                + "handshake count); raise it if the server is legitimately this slow, or set it to nil to wait "
                + "without limit."
        )
    }
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
