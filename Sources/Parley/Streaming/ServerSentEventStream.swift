import HTTPTypes

/// Server-Sent Events from one endpoint, across reconnections: an `AsyncSequence` of ``ServerSentEvent`` that
/// throws ``ParleyError``. Made by ``Client/events(_:lastEventID:reconnect:maxEventSize:)``.
///
/// Connecting happens when iteration starts. The stream reconnects after a drop (see
/// ``ServerSentEventReconnectPolicy``), sending `Last-Event-ID` so that the server can continue where it was. It
/// ends when the server answers `204 No Content`; it fails without reconnecting when the server answers another
/// status that is not acceptable, or a content type other than `text/event-stream`. Cancelling the reading task
/// closes the connection.
public struct ServerSentEventStream: AsyncSequence, Sendable {
    /// An event.
    public typealias Element = ServerSentEvent
    /// Failures are ``ParleyError``s.
    public typealias Failure = ParleyError

    /// Opens one connection with the given header fields added.
    let connect: @Sendable (HTTPFields) async throws(ParleyError) -> StreamedResponse
    let lastEventID: String
    let policy: ServerSentEventReconnectPolicy
    let maxEventSize: Int

    /// An iterator over the events.
    public func makeAsyncIterator() -> Iterator {
        Iterator(stream: self)
    }

    /// Reads events, connecting and reconnecting as needed.
    public struct Iterator: AsyncIteratorProtocol {
        let stream: ServerSentEventStream
        var parser: ServerSentEventParser
        var pending: [ServerSentEvent] = []
        var pendingIndex = 0
        var body: ByteStream.Iterator?
        /// Connections in a row that ended, or failed to open, without an event.
        var failures = 0
        var connected = false
        var finished = false

        init(stream: ServerSentEventStream) {
            self.stream = stream
            parser = ServerSentEventParser(maxEventSize: stream.maxEventSize, lastEventID: stream.lastEventID)
        }

        /// The next event; `nil` once the server said there are no more (204).
        public mutating func next() async throws(ParleyError) -> ServerSentEvent? {
            try await next(isolation: nil)
        }

        /// The next event; `nil` once the server said there are no more (204).
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(ParleyError) -> ServerSentEvent? {
            while true {
                if pendingIndex < pending.count {
                    defer { pendingIndex += 1 }
                    return pending[pendingIndex]
                }
                guard !finished else { return nil }
                if body == nil {
                    try await open(isolation: actor)
                    continue
                }
                do throws(ParleyError) {
                    guard let chunk = try await body?.next(isolation: actor) else {
                        try dropped(nil)
                        continue
                    }
                    pending = try parser.parse(chunk)
                    pendingIndex = 0
                    if !pending.isEmpty { failures = 0 }
                } catch  where error.kind == .transport || error.kind == .timeout {
                    try dropped(error)
                } catch {
                    finished = true
                    body = nil
                    throw error
                }
            }
        }

        /// Opens a connection (after the reconnection wait when this is not the first).
        private mutating func open(isolation actor: isolated (any Actor)?) async throws(ParleyError) {
            if connected {
                let delay = stream.policy.delay(retry: parser.reconnectionTime, failures: failures)
                do {
                    try await Task.sleep(for: delay)
                } catch {
                    finished = true
                    throw ParleyError(.cancelled, "The event stream was cancelled while waiting to reconnect.", underlying: error)
                }
            }
            var headers: HTTPFields = [.accept: "text/event-stream", .cacheControl: "no-cache"]
            if !parser.lastEventID.isEmpty, let name = HTTPField.Name("Last-Event-ID") {
                headers[name] = parser.lastEventID
            }
            connected = true
            let response: StreamedResponse
            do throws(ParleyError) {
                response = try await stream.connect(headers)
            } catch  where error.kind == .transport || error.kind == .timeout {
                failures += 1
                try giveUpIfNeeded(error)
                return
            } catch {
                finished = true
                throw error
            }
            if response.response.status.code == 204 {
                finished = true
                return
            }
            guard Self.isEventStream(response.response) else {
                finished = true
                throw ParleyError(
                    .validation,
                    "The server answered with Content-Type \(response.response.headerFields[.contentType] ?? "(none)") "
                        + "instead of text/event-stream; this is not an event stream."
                )
                .attaching(response: response.response)
            }
            body = response.body.makeAsyncIterator()
        }

        /// The connection ended (`error == nil`) or broke: reconnect, or end.
        private mutating func dropped(_ error: ParleyError?) throws(ParleyError) {
            body = nil
            parser.finish()
            guard stream.policy.isEnabled else {
                finished = true
                if let error { throw error }
                return
            }
            if pending.isEmpty { failures += 1 }
            try giveUpIfNeeded(error)
        }

        private mutating func giveUpIfNeeded(_ error: ParleyError?) throws(ParleyError) {
            guard stream.policy.isEnabled else {
                finished = true
                if let error { throw error }
                return
            }
            if let maxAttempts = stream.policy.maxAttempts, failures >= maxAttempts {
                finished = true
                throw ParleyError(
                    .transport,
                    "The event stream gave up after \(failures) connections in a row without an event"
                        + (error.map { "; the last failure: \($0.message)" } ?? "; the server kept closing the connection."),
                    underlying: error
                )
            }
        }

        static func isEventStream(_ response: HTTPResponse) -> Bool {
            MediaType(of: response) == .eventStream
        }
    }
}
