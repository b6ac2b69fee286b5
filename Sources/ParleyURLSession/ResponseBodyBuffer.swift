import Parley

/// The body bytes of one streamed response that FoundationNetworking delivered and the consumer has not read yet.
///
/// Unlike an `AsyncThrowingStream`, it can be emptied: once the body is abandoned (the consumer dropped it, or a
/// limit failed it) the bytes held are released at once and every later delivery is discarded, so a body that
/// keeps arriving while the cancellation reaches FoundationNetworking's work queue costs nothing. What is held
/// while the consumer is behind is bounded by the ``ResponseGate`` the delegate reports to.
final class ResponseBodyBuffer: Sendable {
    /// How the body ended.
    enum End {
        case finished
        case failed(any Error)
    }

    private struct State {
        var chunks: [ArraySlice<UInt8>] = []
        var head = 0
        var end: End?
        /// Nobody reads any more: deliveries are discarded.
        var abandoned = false
        var reader: CheckedContinuation<ArraySlice<UInt8>?, any Error>?
    }

    private let state = LockedState(State())

    /// The most bytes one read joins from chunks already waiting (FoundationNetworking delivers 16 KiB at a time):
    /// a reader that fell behind catches up in fewer, larger reads (a download writes its file in fewer calls).
    static let maxJoined = 256 << 10

    private enum Ready {
        case chunks(ArraySlice<ArraySlice<UInt8>>)
        case chunk(ArraySlice<UInt8>?)
        case failure(any Error)
        case cancelled
    }

    /// Keeps `chunk` for the reader. Returns `false` (and keeps nothing) once the body ended or was abandoned.
    func append(_ chunk: ArraySlice<UInt8>) -> Bool {
        let (kept, reader) = state.withLock { state -> (Bool, CheckedContinuation<ArraySlice<UInt8>?, any Error>?) in
            guard state.end == nil, !state.abandoned else { return (false, nil) }
            if let reader = state.reader {
                state.reader = nil
                return (true, reader)
            }
            state.chunks.append(chunk)
            return (true, nil)
        }
        reader?.resume(returning: chunk)
        return kept
    }

    /// The body ended: normally (`error` is `nil`) or with `error`. Bytes already held are still read first;
    /// the first end wins.
    func finish(_ error: (any Error)? = nil) {
        let reader = state.withLock { state -> CheckedContinuation<ArraySlice<UInt8>?, any Error>? in
            guard state.end == nil else { return nil }
            state.end = error.map { .failed($0) } ?? .finished
            defer { state.reader = nil }
            return state.reader
        }
        guard let reader else { return }
        if let error { reader.resume(throwing: error) } else { reader.resume(returning: nil) }
    }

    /// Fails the body with `error` now: the bytes held are dropped, the reader gets `error` next, and later
    /// deliveries are discarded. Returns `false` if the body had already ended.
    @discardableResult
    func fail(_ error: any Error) -> Bool {
        let (failed, reader) = state.withLock { state -> (Bool, CheckedContinuation<ArraySlice<UInt8>?, any Error>?) in
            guard state.end == nil else { return (false, nil) }
            state.end = .failed(error)
            state.chunks = []
            state.head = 0
            defer { state.reader = nil }
            return (true, state.reader)
        }
        reader?.resume(throwing: error)
        return failed
    }

    /// Nobody will read the body: drops what is held and discards what still arrives. Returns the bytes dropped.
    @discardableResult
    func abandon() -> Int {
        state.withLock { state -> Int in
            state.abandoned = true
            let dropped = state.chunks[state.head...].reduce(0) { $0 + $1.count }
            state.chunks = []
            state.head = 0
            return dropped
        }
    }

    /// The next chunk (the chunks waiting joined, up to ``maxJoined`` bytes), `nil` at the end of a body that
    /// finished normally; throws the body's failure, or `cancelled` if the calling task is cancelled while it waits.
    func next(cancelled: @escaping @Sendable () -> any Error) async throws -> ArraySlice<UInt8>? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let ready = state.withLock { state -> Ready? in
                    if state.head < state.chunks.count {
                        let first = state.head
                        var joined = state.chunks[first].count
                        state.head += 1
                        while state.head < state.chunks.count, joined + state.chunks[state.head].count <= Self.maxJoined {
                            joined += state.chunks[state.head].count
                            state.head += 1
                        }
                        let taken = state.chunks[first..<state.head]
                        if state.head == state.chunks.count || state.head > 64 {
                            state.chunks.removeFirst(state.head)
                            state.head = 0
                        }
                        return taken.count == 1 ? .chunk(taken[taken.startIndex]) : .chunks(taken)
                    }
                    switch state.end {
                    case .finished: return .chunk(nil)
                    case .failed(let error): return .failure(error)
                    case nil: break
                    }
                    if Task.isCancelled { return .cancelled }
                    state.reader = continuation
                    return nil
                }
                switch ready {
                case .chunks(let chunks):
                    // Joined outside the lock, which the delegate queue's deliveries wait for.
                    var joined: [UInt8] = []
                    joined.reserveCapacity(chunks.reduce(0) { $0 + $1.count })
                    for chunk in chunks { joined.append(contentsOf: chunk) }
                    continuation.resume(returning: joined[...])
                case .chunk(let chunk): continuation.resume(returning: chunk)
                case .failure(let error): continuation.resume(throwing: error)
                case .cancelled: continuation.resume(throwing: cancelled())
                case nil: break
                }
            }
        } onCancel: {
            let reader = state.withLock { state -> CheckedContinuation<ArraySlice<UInt8>?, any Error>? in
                defer { state.reader = nil }
                return state.reader
            }
            reader?.resume(throwing: cancelled())
        }
    }
}
