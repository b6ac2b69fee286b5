import OpenAPIRuntime
import Parley

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

extension URLSessionTransport {
    /// The largest body of known length that is collected into `httpBody` rather than streamed.
    static let collectedBodyLimit: Int64 = 256 * 1024

    /// Puts `body` on `urlRequest`: small bodies of known length as `httpBody`, anything else streamed through
    /// `httpBodyStream` on Linux (collected on Apple platforms, where an `InputStream` subclass is not read).
    ///
    /// FoundationNetworking gives curl no length for a stream, so curl would send it chunked, and add
    /// `Transfer-Encoding: chunked` beside a `Content-Length` we set. For a known length this sets
    /// `Content-Length` and a blank `Transfer-Encoding`, which curl reads as "no transfer encoding": the body
    /// goes out raw with its length. (FoundationNetworking already drops `Expect: 100-continue` for a body it
    /// was given, so nothing waits a second for a `100 Continue`.) An unknown length goes out chunked.
    ///
    /// curl reads the stream on FoundationNetworking's work queue, one serial queue for all sessions of the
    /// process: while the body's source is behind, other URLSession transfers wait. The producer keeps up to
    /// 1 MiB ready, so a source that is faster than the network (memory, a file) makes those waits short.
    static func attach(_ body: HTTPBody?, to urlRequest: inout URLRequest) async throws -> StreamedRequestBody? {
        guard let body else { return nil }
        let known: Int64? = if case .known(let length) = body.length { length } else { nil }
        #if canImport(FoundationNetworking)
            if known.map({ $0 > collectedBodyLimit }) ?? true {
                let upload = StreamedRequestBody(body, length: known)
                urlRequest.httpBodyStream = upload.makeInputStream()
                if let known {
                    urlRequest.setValue(String(known), forHTTPHeaderField: "Content-Length")
                    urlRequest.setValue(" ", forHTTPHeaderField: "Transfer-Encoding")
                } else {
                    urlRequest.setValue(nil, forHTTPHeaderField: "Content-Length")
                }
                return upload
            }
        #endif
        do {
            urlRequest.httpBody = try await Data(collecting: body, upTo: .max)
        } catch {
            throw ParleyError.wrapping(error, as: .transport, "The request body could not be read: \(error).")
        }
        return nil
    }

    /// Where FoundationNetworking's blocking calls wait: serial queues of Parley's own, never a Swift task's thread
    /// nor `DispatchQueue.global()`.
    ///
    /// `resume()`, `cancel()` and task creation wait (`DispatchQueue.sync`) for FoundationNetworking's work queue,
    /// which on Linux is one serial queue for every session of the process, and which a hostile server or a slow
    /// body can hold for seconds or for good. On Linux, Swift's cooperative pool runs on libdispatch's
    /// default-priority thread pool, the one `DispatchQueue.global()` uses, which has one thread per core and adds
    /// about one thread a second while its threads are blocked. With the calls made on `DispatchQueue.global()`,
    /// each URLSession call started while the work queue was held took one of those threads, and every task of the
    /// process stalled, AsyncHTTPClient calls included (issue 14: 24 such calls stalled the process for 30 s; see
    /// docs/investigations/2026-11-24-process-stall.md).
    ///
    /// A serial queue runs on libdispatch's overcommit pool, whose threads are not counted against the cores. There
    /// are several, taken in turn, so that one call waiting behind a busy work queue (a cancellation behind a body
    /// being inflated) does not make every later call wait behind it in turn; at most ``blockingCallQueueCount``
    /// threads are ever parked there, however many calls wait.
    static let blockingCallQueues: [DispatchQueue] = (0..<blockingCallQueueCount).map {
        DispatchQueue(label: "Parley.URLSessionTransport.blocking-calls.\($0)")
    }
    /// How many threads FoundationNetworking's blocking calls may occupy at most.
    static let blockingCallQueueCount = 8
    private static let nextBlockingCallQueue = LockedState(0)

    /// Runs `call` on one of ``blockingCallQueues``, never on a cooperative thread or on `DispatchQueue.global()`.
    static func offCooperativeThreads(_ call: @escaping @Sendable () -> Void) {
        let index = nextBlockingCallQueue.withLock { next in
            defer { next = (next + 1) % blockingCallQueueCount }
            return next
        }
        blockingCallQueues[index].async(execute: call)
    }

    /// Creates a data task for `urlRequest` on `session` without waiting on a cooperative thread.
    static func dataTask(on session: URLSession, for urlRequest: URLRequest) async -> URLSessionDataTask {
        await withCheckedContinuation { continuation in
            offCooperativeThreads { continuation.resume(returning: session.dataTask(with: urlRequest)) }
        }
    }
}
