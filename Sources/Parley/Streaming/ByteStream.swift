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
    /// The longest wait for a chunk (``Client/Configuration/streamIdleTimeout``); `nil` for no limit.
    let idleTimeout: Duration?

    /// A stream over `body` (empty when `nil`), without a limit on the wait for a chunk.
    public init(_ body: HTTPBody?) {
        self.init(body, subject: "the response")
    }

    init(_ body: HTTPBody?, subject: String, idleTimeout: Duration? = nil) {
        self.body = body
        self.subject = subject
        self.idleTimeout = idleTimeout
    }

    /// The length the server declared (`Content-Length`), if any.
    public var declaredLength: Int64? {
        guard case .known(let count) = body?.length else { return nil }
        return count
    }

    /// An iterator over the body's chunks.
    public func makeAsyncIterator() -> Iterator {
        let base = body?.makeAsyncIterator()
        if let idleTimeout, let base {
            return Iterator(base: nil, timed: TimedIterator(base: base, idleTimeout: idleTimeout), subject: subject)
        }
        return Iterator(base: base, timed: nil, subject: subject)
    }

    /// Reads the chunks in order.
    public struct Iterator: AsyncIteratorProtocol {
        var base: HTTPBody.AsyncIterator?
        /// Instead of `base` when the wait for a chunk is limited.
        var timed: TimedIterator?
        let subject: String
        var received: Int64 = 0

        /// The next chunk, or `nil` at the end of the body.
        public mutating func next() async throws(ParleyError) -> ArraySlice<UInt8>? {
            try await next(isolation: nil)
        }

        /// The next chunk, or `nil` at the end of the body.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(ParleyError) -> ArraySlice<UInt8>? {
            guard base != nil || timed != nil else { return nil }
            do {
                let next: ArraySlice<UInt8>?
                if let timed {
                    next = try await timed.next(subject: subject, received: received)
                } else {
                    next = try await base?.next(isolation: actor)
                }
                guard let chunk = next else {
                    base = nil
                    timed = nil
                    return nil
                }
                received += Int64(chunk.count)
                return chunk
            } catch let expiry as TimedIterator.Expired {
                base = nil
                timed = nil
                throw expiry.error
            } catch {
                base = nil
                timed = nil
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

/// A body's iterator whose every wait for a chunk is bounded (``Deadline``): the read runs in a child task of the
/// deadline's task group, so the iterator is kept in a reference the child can reach.
// swift-format-ignore
final class TimedIterator: @unchecked Sendable {  // SAFE: `base` is used by one task at a time: `next` awaits the deadline's group, whose child is the only reader, before it returns; the iterator, which owns this object, is not Sendable and so cannot call `next` from two tasks at once.
    private var base: HTTPBody.AsyncIterator
    let idleTimeout: Duration

    init(base: HTTPBody.AsyncIterator, idleTimeout: Duration) {
        self.base = base
        self.idleTimeout = idleTimeout
    }

    /// The limit passed: ``error`` is the ``ParleyError/Kind/timeout`` to report.
    struct Expired: Error {
        let error: ParleyError
    }

    /// The next chunk; throws ``Expired`` once none has come for ``idleTimeout``.
    func next(subject: String, received: Int64) async throws -> ArraySlice<UInt8>? {
        let idleTimeout = self.idleTimeout
        return try await Deadline.run(
            within: idleTimeout,
            expired: {
                Expired(
                    error: ParleyError(
                        .timeout,
                        "No bytes of \(subject) arrived for \(idleTimeout), after \(received) bytes "
                            + "(Client.Configuration.streamIdleTimeout); raise it if the server legitimately pauses "
                            + "this long, or set it to nil to wait without limit."
                    )
                )
            },
            { try await self.read() }
        )
    }

    private func read() async throws -> ArraySlice<UInt8>? {
        try await base.next()
    }
}
