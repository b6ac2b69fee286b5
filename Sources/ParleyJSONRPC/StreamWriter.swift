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
    func write(_ bytes: Data) async throws(ParleyError) {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, ParleyError>, Never>) in
            queue.async { [self] in
                continuation.resume(
                    returning: Result { () throws(ParleyError) in
                        guard !closed.withLock({ $0 }) else { throw ParleyError(.transport, closedReason) }
                        try StreamIO.write(bytes, to: handle)
                    }
                )
            }
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
