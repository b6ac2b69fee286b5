import HTTPTypes
import OpenAPIRuntime

/// A response body that a buffered call (``Client/send(_:)``, ``Client/response(for:)``) must receive in full within
/// ``Client/Configuration/responseBodyTimeout`` of its head.
///
/// The clock is read as each chunk arrives, so a server that sends the body a byte at a time, which keeps every idle
/// timeout from firing, is cut off after the limit, at the cost of one clock read per chunk and no timer. A server
/// that stops sending altogether is caught by the transport's read timeout (60 s by default on both transports).
struct BodyDeadline: BodyWatcher {
    let limit: Duration
    let deadline: ContinuousClock.Instant

    /// `body` bounded by `limit` from now, or `body` as it is without a body or a limit.
    static func wrap(_ body: HTTPBody?, limit: Duration?) -> HTTPBody? {
        guard let body, let limit else { return body }
        return body.watched(by: BodyDeadline(limit: limit, deadline: .now + limit))
    }

    /// The bytes received so far.
    func startReading(of body: HTTPBody) -> Int { 0 }

    func didRead(_ chunk: ArraySlice<UInt8>, _ received: inout Int) throws {
        received += chunk.count
        guard ContinuousClock.now <= deadline else { throw WholeResponseLimits.bodyExpired(limit, received: received) }
    }
}
