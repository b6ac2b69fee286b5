public import OpenAPIRuntime

/// A response body as it arrives: an `AsyncSequence` of byte chunks that throws ``ParleyError``.
///
/// Chunks are pulled from the connection only as you ask for them, so a slow reader slows the server down
/// instead of making the client buffer the body. Stopping early (leaving the loop, cancelling the task) closes the
/// connection. A body can be read once. ``lines(maxLineLength:)`` and ``jsonLines(of:decoder:maxLineLength:)``
/// split it into text lines or decode newline-delimited JSON.
public struct ByteStream: AsyncSequence, Sendable {
    /// A chunk of bytes, as the transport delivered it.
    public typealias Element = ArraySlice<UInt8>
    /// Failures are ``ParleyError``s: ``ParleyError/Kind/transport`` when the body is cut off,
    /// ``ParleyError/Kind/cancelled`` when the reading task is cancelled.
    public typealias Failure = ParleyError

    let body: HTTPBody?
    /// What to call the body in errors ("the response of GetLog").
    let subject: String

    /// A stream over `body` (empty when `nil`).
    public init(_ body: HTTPBody?) {
        self.init(body, subject: "the response")
    }

    init(_ body: HTTPBody?, subject: String) {
        self.body = body
        self.subject = subject
    }

    /// The length the server declared (`Content-Length`), if any.
    public var declaredLength: Int64? {
        guard case .known(let count) = body?.length else { return nil }
        return count
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(base: body?.makeAsyncIterator(), subject: subject)
    }

    /// Reads the chunks in order.
    public struct Iterator: AsyncIteratorProtocol {
        var base: HTTPBody.AsyncIterator?
        let subject: String
        var received: Int64 = 0

        /// The next chunk, or `nil` at the end of the body.
        public mutating func next() async throws(ParleyError) -> ArraySlice<UInt8>? {
            try await next(isolation: nil)
        }

        /// The next chunk, or `nil` at the end of the body.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(ParleyError) -> ArraySlice<UInt8>? {
            guard base != nil else { return nil }
            do {
                guard let chunk = try await base?.next(isolation: actor) else {
                    base = nil
                    return nil
                }
                received += Int64(chunk.count)
                return chunk
            } catch {
                base = nil
                if Task.isCancelled || error is CancellationError {
                    throw ParleyError(.cancelled, "Reading \(subject) was cancelled after \(received) bytes.", underlying: error)
                }
                throw ParleyError.wrapping(
                    error,
                    as: .transport,
                    "The body of \(subject) was cut off after \(received) bytes: \(error)"
                )
            }
        }
    }
}
