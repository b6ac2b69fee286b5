import HTTPTypes
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

    /// `body` as the transport is to be handed it, and when the clock starts: a body the transport streams is watched
    /// so that its last byte taken starts it (the signal); without one (or with an empty one), it starts at once (`nil`).
    package func watching(_ body: HTTPBody?) -> (body: HTTPBody?, sent: Deadline.Signal?) {
        guard let body, body.length != .known(0) else { return (body, nil) }
        let signal = Deadline.Signal()
        return (body.watched(by: SendingSignal(sent: signal)), signal)
    }

    /// `send()`, which hands the transport the request and the body of ``watching(_:)``, with its head bounded from
    /// `sent` (or from now); the returned body is not bounded (``ByteStream`` bounds its gaps).
    package func send<Value: Sendable>(
        startingAt sent: Deadline.Signal?,
        _ send: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let limit = self.limit
        return try await Deadline.run(within: limit, startingAt: sent, expired: { Self.expired(limit) }, send)
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
