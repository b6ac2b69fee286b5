import Foundation

/// A bounded buffer between a request body's producer (an async task iterating the `HTTPBody`) and
/// FoundationNetworking's reader (curl's read callback, on the session's serial work queue).
///
/// The producer suspends (never blocks a thread) while `capacity` bytes wait unread. The reader blocks its
/// Dispatch thread until bytes arrive, because FoundationNetworking reads `httpBodyStream` synchronously and
/// takes a read of 0 bytes as the end of the body: there is no "try again later" for a stream. A failure (the
/// body threw, its length was wrong, or the call was cancelled) makes the reader return -1, which aborts the
/// transfer instead of sending a truncated body as if it were complete.
final class RequestBodyPipe: @unchecked Sendable {  // SAFE: `state` is only read or written while `condition` is locked.
    /// How the producer side ended.
    enum End {
        case finished
        case failed(any Error)
    }

    private struct State {
        var chunks: [ArraySlice<UInt8>] = []
        var head = 0
        var buffered = 0
        var produced: Int64 = 0
        var end: End?
        var closed = false
        var writer: CheckedContinuation<Bool, Never>?
    }

    private let condition = NSCondition()
    private var state = State()
    /// Bytes the producer may run ahead of the reader.
    let capacity: Int
    /// The declared length: more or fewer bytes than this are a failure, not a body.
    let expectedLength: Int64?

    init(capacity: Int, expectedLength: Int64?) {
        self.capacity = capacity
        self.expectedLength = expectedLength
    }

    /// Why the body failed, if it did.
    var failure: (any Error)? {
        condition.lock()
        defer { condition.unlock() }
        if case .failed(let error) = state.end { return error }
        return nil
    }

    /// Adds a chunk; suspends while the buffer is full. Returns `false` once the reader is gone: stop producing.
    func write(_ chunk: ArraySlice<UInt8>) async -> Bool {
        switch append(chunk) {
        case .stop: return false
        case .added: return true
        case .full: return await withCheckedContinuation { waitForRoom($0) }
        }
    }

    private enum Appended { case added, full, stop }

    private func append(_ chunk: ArraySlice<UInt8>) -> Appended {
        condition.lock()
        guard !state.closed, state.end == nil else {
            condition.unlock()
            return .stop
        }
        state.produced += Int64(chunk.count)
        if let expectedLength, state.produced > expectedLength {
            condition.unlock()
            fail(RequestBodyLengthError(declared: expectedLength, produced: nil))
            return .stop
        }
        if !chunk.isEmpty {
            state.chunks.append(chunk)
            state.buffered += chunk.count
            condition.signal()
        }
        let full = state.buffered >= capacity
        condition.unlock()
        return full ? .full : .added
    }

    private func waitForRoom(_ continuation: CheckedContinuation<Bool, Never>) {
        condition.lock()
        if state.closed || state.end != nil {
            condition.unlock()
            continuation.resume(returning: false)
        } else if state.buffered < capacity {
            condition.unlock()
            continuation.resume(returning: true)
        } else {
            state.writer = continuation
            condition.unlock()
        }
    }

    /// The producer reached the end of the body.
    func finish() {
        condition.lock()
        if state.end == nil {
            if let expectedLength, state.produced != expectedLength {
                state.end = .failed(RequestBodyLengthError(declared: expectedLength, produced: state.produced))
            } else {
                state.end = .finished
            }
        }
        condition.broadcast()
        condition.unlock()
    }

    /// The body failed (or the call was cancelled): the reader aborts the transfer, the producer stops.
    func fail(_ error: any Error) {
        dropBuffer { state in
            switch state.end {
            case nil: state.end = .failed(error)
            case .finished where state.buffered > 0: state.end = .failed(error)
            default: break  // the first failure stays; a body already read whole is not failed afterwards
            }
        }
    }

    /// The transfer is over (completed or failed): wakes and stops the producer, and any reader.
    func close() {
        dropBuffer { $0.closed = true }
    }

    /// Applies `update`, drops the buffered bytes, and wakes the producer (told to stop) and any reader.
    private func dropBuffer(_ update: (inout State) -> Void) {
        condition.lock()
        update(&state)
        state.chunks = []
        state.head = 0
        state.buffered = 0
        let writer = state.writer
        state.writer = nil
        condition.broadcast()
        condition.unlock()
        writer?.resume(returning: false)
    }

    /// Copies up to `maxLength` bytes into `buffer`, blocking until some arrive. Returns 0 at the end of the
    /// body and -1 when it failed. Called on FoundationNetworking's work queue only, never on a Swift task.
    func read(into buffer: UnsafeMutablePointer<UInt8>, maxLength: Int) -> Int {
        condition.lock()
        while state.buffered == 0 && state.end == nil && !state.closed {
            condition.wait()
        }
        if case .failed = state.end {
            condition.unlock()
            return -1
        }
        if state.buffered == 0 {
            let finished = isFinished(state.end)
            condition.unlock()
            return finished ? 0 : -1
        }
        var copied = 0
        while copied < maxLength, state.head < state.chunks.count {
            let chunk = state.chunks[state.head]
            let count = min(chunk.count, maxLength - copied)
            chunk.withUnsafeBufferPointer { source in
                if let base = source.baseAddress { (buffer + copied).update(from: base, count: count) }
            }
            copied += count
            if count == chunk.count {
                state.head += 1
            } else {
                state.chunks[state.head] = chunk.dropFirst(count)
            }
        }
        if state.head == state.chunks.count || state.head > 64 {
            state.chunks.removeFirst(state.head)
            state.head = 0
        }
        state.buffered -= copied
        var writer: CheckedContinuation<Bool, Never>?
        if state.buffered <= capacity / 2 {
            writer = state.writer
            state.writer = nil
        }
        condition.unlock()
        writer?.resume(returning: true)
        return copied
    }

    private func isFinished(_ end: End?) -> Bool {
        if case .finished = end { return true }
        return false
    }
}

/// A body that produced more or fewer bytes than its declared length.
struct RequestBodyLengthError: Error, CustomStringConvertible {
    let declared: Int64
    /// What it produced in the end; `nil` when it went past `declared`.
    let produced: Int64?

    var description: String {
        if let produced {
            return "the body declared \(declared) bytes but produced \(produced)"
        }
        return "the body produced more than its declared \(declared) bytes"
    }
}
