import OpenAPIRuntime

/// One way of watching a body as it streams through unchanged (``HTTPBody/watched(by:)``). Every observer of a body
/// in Parley is one: logging, metrics and tracing (``BodyObserver``), upload progress, the concurrency limiter's
/// permit, the response-head and response-body deadlines, and ParleyTesting's recorder.
package protocol BodyWatcher: Sendable {
    /// What one reading of the body keeps (a replayable body may be read more than once).
    associatedtype Reading = Void

    /// Starts a reading of `body`.
    func startReading(of body: HTTPBody) -> Reading
    /// Before each chunk is asked for; throwing ends the reading with that error.
    func willRead(_ reading: inout Reading) throws
    /// A chunk as it passes; throwing ends the reading with that error.
    func didRead(_ chunk: ArraySlice<UInt8>, _ reading: inout Reading) throws
    /// The body ended; throwing fails the reading instead. The reader sees the end once it returns (the cache stores
    /// what it collected here, so that the next call finds it).
    func didFinish(_ reading: inout Reading) async throws
    /// The body failed with `error`.
    func didFail(_ error: any Error, _ reading: inout Reading)
}

extension BodyWatcher {
    package func willRead(_ reading: inout Reading) throws {}
    package func didRead(_ chunk: ArraySlice<UInt8>, _ reading: inout Reading) throws {}
    package func didFinish(_ reading: inout Reading) throws {}
    package func didFail(_ error: any Error, _ reading: inout Reading) {}
}

extension BodyWatcher where Reading == Void {
    package func startReading(of body: HTTPBody) {}
}

extension HTTPBody {
    /// This body, streamed on unchanged (same chunks, length and replayability) while `watcher` watches it.
    package func watched(by watcher: some BodyWatcher) -> HTTPBody {
        HTTPBody(WatchedBody(base: self, watcher: watcher), length: length, iterationBehavior: iterationBehavior)
    }
}

/// The one body wrapper behind ``HTTPBody/watched(by:)``.
private struct WatchedBody<Watcher: BodyWatcher>: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>

    let base: HTTPBody
    let watcher: Watcher

    func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator(), watcher: watcher, reading: watcher.startReading(of: base))
    }

    struct Iterator: AsyncIteratorProtocol {
        var base: HTTPBody.AsyncIterator
        let watcher: Watcher
        var reading: Watcher.Reading

        mutating func next() async throws -> ArraySlice<UInt8>? {
            try watcher.willRead(&reading)
            let chunk: ArraySlice<UInt8>?
            do {
                chunk = try await base.next()
            } catch {
                watcher.didFail(error, &reading)
                throw error
            }
            guard let chunk else {
                try await watcher.didFinish(&reading)
                return nil
            }
            try watcher.didRead(chunk, &reading)
            return chunk
        }
    }
}

extension HTTPBody {
    /// The body's length when it is known.
    package var knownLength: Int64? {
        if case .known(let count) = length { count } else { nil }
    }
}
