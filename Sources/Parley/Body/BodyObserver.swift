import OpenAPIRuntime

/// Watches one body as it passes: counts its bytes, keeps its first bytes (up to a limit) for a log line, and
/// reports once how it ended: read to its end, failed, or released before its end.
///
/// A ``BodyWatcher`` of the body (``watch(_:)``), shared by its readings. The report runs at most once: on the end of
/// the first reading that ends, or on release (`deinit`) when no reading ended.
final class BodyObserver: BodyWatcher {
    /// How a body's reading ended.
    enum Ending: Sendable {
        /// Read to its end.
        case finished
        /// Reading it failed with this error.
        case failed(any Error)
        /// Released before it was read to its end.
        case dropped
    }

    /// What the body was seen doing.
    struct Totals: Sendable {
        /// Bytes passed on, over every iteration.
        var bytes: Int64 = 0
        /// The first bytes of the first iteration, at most the capture limit.
        var prefix: [UInt8] = []
        /// Whether the first iteration had more bytes than the prefix kept.
        var truncated = false
        /// Iterations started.
        var iterations = 0
        /// Whether the report has run.
        var ended = false
    }

    private let captureLimit: Int
    private let state = LockedState(Totals())
    private let onEnd: (@Sendable (Ending, Totals) -> Void)?

    /// An observer keeping up to `captureLimit` first bytes, calling `onEnd` once when the body ends.
    init(captureLimit: Int = 0, onEnd: (@Sendable (Ending, Totals) -> Void)? = nil) {
        self.captureLimit = max(0, captureLimit)
        self.onEnd = onEnd
    }

    deinit { end(.dropped) }

    /// The totals so far.
    var totals: Totals { state.withLock { $0 } }

    /// Counts a new iteration; returns its number (from 1).
    func startIteration() -> Int {
        state.withLock { state in
            state.iterations += 1
            return state.iterations
        }
    }

    /// Counts `chunk`, passed on by iteration number `iteration`.
    func record(_ chunk: ArraySlice<UInt8>, iteration: Int) {
        let limit = captureLimit
        state.withLock { state in
            state.bytes += Int64(chunk.count)
            guard iteration == 1, limit > 0, !state.truncated else { return }
            let room = limit - state.prefix.count
            state.prefix.append(contentsOf: chunk.prefix(room))
            if chunk.count > room { state.truncated = true }
        }
    }

    /// `body` watched by this observer; when `body` is `nil`, the report runs at once as finished.
    func watch(_ body: HTTPBody?) -> HTTPBody? {
        guard let body else {
            end(.finished)
            return nil
        }
        return body.watched(by: self)
    }

    func startReading(of body: HTTPBody) -> Int { startIteration() }

    func didRead(_ chunk: ArraySlice<UInt8>, _ iteration: inout Int) { record(chunk, iteration: iteration) }

    func didFinish(_ iteration: inout Int) { end(.finished) }

    func didFail(_ error: any Error, _ iteration: inout Int) { end(.failed(error)) }

    /// Reports `ending` unless a report already ran.
    func end(_ ending: Ending) {
        let totals: Totals? = state.withLock { state in
            guard !state.ended else { return nil }
            state.ended = true
            return state
        }
        if let totals { onEnd?(ending, totals) }
    }
}
