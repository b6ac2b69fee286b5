import Dispatch
import Foundation
import Parley

/// Writes messages to a byte stream (a pipe, a child's standard input) in order, on a serial queue of its own.
///
/// `write(2)` blocks while the reader is behind: a pipe holds 64 KiB, and a peer that stops reading its input (a
/// stuck language server, a hostile tool server) blocks the writer for good. A Swift task must never wait there:
/// on a 2-core machine two such writes would hold every cooperative thread and stop every task of the process. The
/// queue is serial, so it blocks at most one thread (of libdispatch's overcommit pool, not Swift's), and the
/// callers wait by suspending, in the order they wrote.
final class StreamWriter: Sendable {
    private let handle: FileHandle
    private let queue: DispatchQueue
    /// Whether the handle was closed; read and written on `queue` only, kept in a lock for `Sendable`.
    private let closed = LockedState(false)
    /// Why later writes fail once the handle is closed.
    private let closedReason: String

    init(_ handle: FileHandle, label: String, closedReason: String) {
        self.handle = handle
        self.queue = DispatchQueue(label: label)
        self.closedReason = closedReason
    }

    /// Writes every byte of `bytes` after the writes queued before it, suspending (not blocking) until done.
    ///
    /// Cancelling the caller stops its wait at once (``/Parley/ParleyError/Kind/cancelled``), so a call's timeout
    /// holds even when the peer has stopped reading: a write that has not begun is then skipped, one that has begun
    /// completes on the queue (a message is never cut in half).
    func write(_ bytes: Data) async throws(ParleyError) {
        let wait = WriteWait()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, ParleyError>, Never>) in
                guard wait.park(continuation) else { return }
                queue.async { [self] in
                    guard wait.begin() else { return }  // cancelled before its turn: nothing of it was written
                    wait.finish(
                        Result { () throws(ParleyError) in
                            guard !closed.withLock({ $0 }) else { throw ParleyError(.transport, closedReason) }
                            try StreamIO.write(bytes, to: handle)
                        }
                    )
                }
            }
        } onCancel: {
            wait.finish(.failure(ParleyError(.cancelled, "The write to the JSON-RPC peer was cancelled before it completed.")))
        }
        try result.get()
    }

    /// Closes the handle once the writes queued before it are done; later writes fail.
    func close() {
        queue.async { [self] in
            let wasOpen = closed.withLock { closed in
                defer { closed = true }
                return !closed
            }
            if wasOpen { try? handle.close() }
        }
    }
}

/// One caller's wait for its write: resumed once, by the write's end or by the caller's cancellation, whichever
/// comes first; a write whose caller has gone does not begin.
private final class WriteWait: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Result<Void, ParleyError>, Never>?
        var outcome: Result<Void, ParleyError>?
    }

    private let state = LockedState(State())

    /// Keeps `continuation` until the outcome; `false` (and `continuation` resumed) when it is already known.
    func park(_ continuation: CheckedContinuation<Result<Void, ParleyError>, Never>) -> Bool {
        let known: Result<Void, ParleyError>? = state.withLock { state in
            if let outcome = state.outcome { return outcome }
            state.continuation = continuation
            return nil
        }
        if let known { continuation.resume(returning: known) }
        return known == nil
    }

    /// Whether the write may begin: not when its caller was cancelled first.
    func begin() -> Bool {
        state.withLock { state in
            state.outcome == nil
        }
    }

    /// The outcome, handed to the caller unless it already has one.
    func finish(_ outcome: Result<Void, ParleyError>) {
        let continuation: CheckedContinuation<Result<Void, ParleyError>, Never>? = state.withLock { state in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(returning: outcome)
    }
}
