import AsyncHTTPClient
import NIOCore
import OpenAPIRuntime
import Parley

/// What the transport knows about one call's streamed request body: whether AsyncHTTPClient has started to read
/// it, how many bytes it took, and whether the call's response has ended (after which the body must stop).
final class RequestBodyProgress: Sendable {
    private struct State {
        var started = false
        var taken: Int64 = 0
        var responseEnded = false
    }

    private let state = LockedState(State())

    /// Whether AsyncHTTPClient has begun to read the body (then it cannot be sent again).
    var started: Bool { state.withLock { $0.started } }

    /// How many bytes AsyncHTTPClient has taken.
    var taken: Int64 { state.withLock { $0.taken } }

    func start() { state.withLock { $0.started = true } }

    func took(_ count: Int) { state.withLock { $0.taken += Int64(count) } }

    /// Marks the response as ended: the next read of the body fails, so that AsyncHTTPClient stops sending it
    /// and closes the connection instead of uploading the rest behind the caller's back.
    func responseEnded() { state.withLock { $0.responseEnded = true } }

    var isResponseEnded: Bool { state.withLock { $0.responseEnded } }
}

/// Thrown into AsyncHTTPClient's body reader once the response has ended while the request body was still
/// being sent (a server that answered early); AsyncHTTPClient then fails the request and closes its connection.
/// No caller sees it: the call has ended with its response.
struct RequestBodyAbandoned: Error, CustomStringConvertible {
    var description: String { "the response ended before the request body was sent; the rest of the body is not sent" }
}

/// A request body as AsyncHTTPClient reads it: byte buffers, bookkept in a ``RequestBodyProgress``, ending once the
/// response has ended, and never more than about ``syncInterval`` bytes ahead of the event loops.
///
/// AsyncHTTPClient hands each part it reads to the connection's event loop as a task and reads the next one at once
/// while the channel counts as writable; it learns that the channel is no longer writable only when the loop has run
/// those tasks. A source faster than the socket (a file in the page cache) on a busy machine so queues tens or
/// hundreds of MiB of parts on the loop (a 1 GiB upload peaked between 11 and 176 MiB above idle). Every
/// ``syncInterval`` bytes this sequence waits until every loop of the client's group has run what was queued before;
/// by then AsyncHTTPClient has seen the channel's writability and pauses the body when it should (worst of 5, with the
/// client's core busy: 89.5 MiB before, 2.6 MiB after; the upload runs at 0.88 of curl's speed).
struct RequestBodyStream: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    typealias Failure = any Error

    /// How many bytes may be handed to AsyncHTTPClient before waiting for the event loops to catch up.
    static let syncInterval = 1 << 20

    let base: HTTPBody
    let progress: RequestBodyProgress
    /// The loops AsyncHTTPClient writes on.
    let eventLoops: any EventLoopGroup

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: HTTPBody.AsyncIterator
        let progress: RequestBodyProgress
        let eventLoops: any EventLoopGroup
        var sinceSync = 0

        mutating func next() async throws -> ByteBuffer? {
            if sinceSync >= RequestBodyStream.syncInterval {
                sinceSync = 0
                try await Self.waitForEventLoops(eventLoops)
            }
            // Checked before the body is read, so that a file is not read (and its progress not reported) any
            // further once the call is over.
            guard !progress.isResponseEnded else { throw RequestBodyAbandoned() }
            guard let chunk = try await base.next() else { return nil }
            progress.took(chunk.count)
            sinceSync += chunk.count
            return ByteBuffer(bytes: chunk)
        }

        /// Returns once every loop of `group` has run what was queued on it before this call.
        ///
        /// One checked continuation, resumed by the combined future: `EventLoopFuture.get()` resumes an unsafe
        /// continuation from the loop, which ThreadSanitizer reports as a race with the resumed task's frame.
        static func waitForEventLoops(_ group: any EventLoopGroup) async throws {
            let loops = Array(group.makeIterator())
            guard let first = loops.first else { return }
            let hops = loops.map { $0.submit {} }
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                EventLoopFuture.andAllSucceed(hops, on: first).whenComplete { continuation.resume(with: $0) }
            }
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        progress.start()
        return AsyncIterator(base: base.makeAsyncIterator(), progress: progress, eventLoops: eventLoops)
    }
}
