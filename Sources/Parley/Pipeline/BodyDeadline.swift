import HTTPTypes
import OpenAPIRuntime

/// A response body that a buffered call (``Client/send(_:)``, ``Client/response(for:)``) must receive in full within
/// ``Client/Configuration/responseBodyTimeout`` of its head.
///
/// The clock is read as each chunk arrives, so a server that sends the body a byte at a time, which keeps every idle
/// timeout from firing, is cut off after the limit, at the cost of one clock read per chunk and no timer. A server
/// that stops sending altogether is caught by the transport's read timeout (60 s by default on both transports).
struct BodyDeadline: AsyncSequence, Sendable {
    typealias Element = HTTPBody.ByteChunk

    let base: HTTPBody
    let limit: Duration
    let deadline: ContinuousClock.Instant

    /// `body` bounded by `limit` from now, or `body` as it is without a body or a limit.
    static func wrap(_ body: HTTPBody?, limit: Duration?) -> HTTPBody? {
        guard let body, let limit else { return body }
        let bounded = BodyDeadline(base: body, limit: limit, deadline: .now + limit)
        return HTTPBody(bounded, length: body.length, iterationBehavior: body.iterationBehavior)
    }

    func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator(), limit: limit, deadline: deadline)
    }

    struct Iterator: AsyncIteratorProtocol {
        var base: HTTPBody.AsyncIterator
        let limit: Duration
        let deadline: ContinuousClock.Instant
        var received = 0

        mutating func next() async throws -> HTTPBody.ByteChunk? {
            guard let chunk = try await base.next() else { return nil }
            received += chunk.count
            guard ContinuousClock.now <= deadline else {
                throw ParleyError(
                    .timeout,
                    "The response body did not arrive in full within \(limit) of its head "
                        + "(Client.Configuration.responseBodyTimeout): \(received) bytes came, too slowly. Raise the "
                        + "limit, or set a timeout on the endpoint or the client, if the server is legitimately this slow."
                )
            }
            return chunk
        }
    }
}
