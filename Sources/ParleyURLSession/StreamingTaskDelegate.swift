import OpenAPIRuntime
import Parley

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

/// The per-task delegate of one request: hands over the response head as soon as it arrives, then streams
/// the body chunk by chunk through a ``ResponseBodyBuffer`` whose size the ``ResponseGate`` bounds, so nothing is
/// buffered whole, a consumer that stops cancels the task, and what arrives after that is discarded.
final class StreamingTaskDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private enum Phase {
        case waitingForHead(CheckedContinuation<URLResponse, any Error>?)
        case streaming
        case finished
    }

    private let phase = LockedState<Phase>(.waitingForHead(nil))
    private let completedNormally = LockedState(false)
    private let challengeRejected = LockedState(false)
    private let task = LockedState<URLSessionTask?>(nil)
    /// Whether the task was cancelled (once is enough).
    private let cancelling = LockedState(false)
    private let buffer = ResponseBodyBuffer()
    /// The request body being streamed, if it is: stopped before the task is cancelled, and when it completes.
    private let upload: StreamedRequestBody?
    /// Holds the session's delivery of body data while the consumer is behind.
    private let gate: ResponseGate
    /// The call's decompression limits, applied to a body URLSession inflates itself (`nil`: none).
    private let decompression: ResponseDecompression?
    /// The limits for this response's inflated body, once its head said it is content-coded.
    private let inflation = LockedState<InflationLimit?>(nil)
    /// Called once the task completed (gives the session back to its pool).
    private let onComplete: @Sendable () -> Void

    init(
        upload: StreamedRequestBody?,
        gate: ResponseGate,
        decompression: ResponseDecompression?,
        onComplete: @escaping @Sendable () -> Void
    ) {
        self.upload = upload
        self.gate = gate
        self.decompression = decompression
        self.onComplete = onComplete
        super.init()
    }

    /// Cancels `task`, first failing a streamed request body, dropping the response body held and opening the
    /// response gate: FoundationNetworking's cancellation runs on the session's work queue, which may be waiting
    /// for the body or the gate, and body data still delivered before it lands is discarded.
    ///
    /// Only the first call cancels: on Swift 6.3, `URLSessionTask.cancel()` waits for the work queue, and a body
    /// that keeps arriving after it failed (libcurl inflating a bomb) must not park a Dispatch thread per chunk.
    func cancel(_ task: URLSessionTask) {
        buffer.abandon()
        gate.open()
        guard
            cancelling.withLock({ cancelling in
                defer { cancelling = true }
                return !cancelling
            })
        else { return }
        upload?.cancel()
        URLSessionTransport.offCooperativeThreads { task.cancel() }
    }

    /// Waits for the response head (or the task's failure).
    func head(of task: URLSessionTask) async throws -> URLResponse {
        self.task.withLock { $0 = task }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let resumeNow = phase.withLock { phase -> Bool in
                    guard case .waitingForHead = phase else { return true }
                    phase = .waitingForHead(continuation)
                    return false
                }
                if !resumeNow {
                    URLSessionTransport.offCooperativeThreads { task.resume() }
                } else if Task.isCancelled {
                    continuation.resume(throwing: Self.cancelledBeforeHead)
                } else {
                    continuation.resume(throwing: ParleyError(.transport, "The request ended before its response head arrived."))
                }
            }
        } onCancel: {
            cancel(task)
            // Returns now rather than when FoundationNetworking reports the task cancelled: that report needs its
            // shared work queue, which a hostile response elsewhere in the process can hold for minutes.
            let waiting = phase.withLock { phase -> CheckedContinuation<URLResponse, any Error>? in
                defer { phase = .finished }
                if case .waitingForHead(let continuation) = phase { return continuation }
                return nil
            }
            waiting?.resume(throwing: Self.cancelledBeforeHead)
        }
    }

    private static let cancelledBeforeHead = ParleyError(.cancelled, "The request was cancelled.")

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        // FoundationNetworking hands over an interim response (`103 Early Hints`, or a `1xx` libcurl does not
        // swallow itself) as if it were the response; the final one follows on the same task. `101` is final.
        if let http = response as? HTTPURLResponse, (100..<200).contains(http.statusCode), http.statusCode != 101 {
            completionHandler(.allow)
            return
        }
        if let http = response as? HTTPURLResponse, let decompression {
            inflation.withLock { $0 = InflationLimit(response: http, limits: decompression) }
        }
        let waiting = phase.withLock { phase -> CheckedContinuation<URLResponse, any Error>? in
            guard case .waitingForHead(let continuation) = phase else { return nil }
            phase = .streaming
            return continuation
        }
        completionHandler(.allow)
        waiting?.resume(returning: response)
    }

    /// The router turned down an authentication challenge: URLSession will end the task as cancelled,
    /// which here means "the 401 response is complete".
    func rejectedChallenge() {
        challengeRejected.withLock { $0 = true }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        if let failure = inflation.withLock({ $0?.inflated(data.count) }) {
            // Past the limit: the reader gets the failure now; what libcurl still inflates before the cancellation
            // reaches it is discarded.
            buffer.fail(failure)
            cancel(dataTask)
            return
        }
        // Counted before it can be read, so that the reader's `consumed` never runs ahead of `received`.
        gate.received(data.count)
        // One memcpy: `ArraySlice(data)` copies byte by byte through Data's iterator when not specialised (debug
        // builds), and this runs while FoundationNetworking's one work queue waits for the delegate queue.
        let bytes = data.withUnsafeBytes { ArraySlice($0.bindMemory(to: UInt8.self)) }
        if !buffer.append(bytes) {
            // Abandoned or failed: nobody reads it, and the gate must not wait for it to be consumed.
            gate.consumed(data.count)
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        upload?.finish()
        let waiting = phase.withLock { phase -> CheckedContinuation<URLResponse, any Error>? in
            defer { phase = .finished }
            if case .waitingForHead(let continuation) = phase { return continuation }
            return nil
        }
        var error = error
        if let urlError = error as? URLError, urlError.code == .cancelled, waiting == nil,
            challengeRejected.withLock({ $0 })
        {
            error = nil
        }
        if let error {
            let failure = upload?.failure() ?? URLSessionTransport.translate(error)
            if let waiting {
                waiting.resume(throwing: failure)
            }
            buffer.finish(failure)
        } else {
            if let waiting, let response = task.response {
                waiting.resume(returning: response)
            } else {
                waiting?.resume(throwing: ParleyError(.transport, "URLSession finished without a response."))
            }
            completedNormally.withLock { $0 = true }
            buffer.finish()
        }
        onComplete()
    }

    /// Cancels the data task unless it already completed: the body was dropped before its end.
    func abandon() {
        buffer.abandon()
        gate.open()
        guard !completedNormally.withLock({ $0 }) else { return }
        if let task = task.withLock({ $0 }) { cancel(task) }
    }

    /// The response body. It ends only when the task completed; a stream cut short by cancellation throws
    /// instead of looking like a complete body. Dropping the body (or its iterator) before the end cancels the
    /// task and discards what still arrives, so a size limit or an early error stops the download instead of
    /// letting it fill memory.
    var body: Body { Body(delegate: self, owner: BodyOwner(delegate: self)) }

    /// Held by the body and its iterator; when the last of them goes, an unfinished task is cancelled.
    final class BodyOwner: Sendable {
        let delegate: StreamingTaskDelegate
        init(delegate: StreamingTaskDelegate) { self.delegate = delegate }
        deinit { delegate.abandon() }
    }

    struct Body: AsyncSequence, Sendable {
        typealias Element = ArraySlice<UInt8>
        let delegate: StreamingTaskDelegate
        let owner: BodyOwner

        /// The body is read once (`iterationBehavior` `.single`): when its iterator goes, nobody can read on, so
        /// the rest is abandoned at once even while the body itself is still referenced (a middleware that read
        /// a 401's body up to a limit and broke off keeps it until its replay returned; holding on until then kept
        /// FoundationNetworking's shared queue waiting for that reader).
        func makeAsyncIterator() -> Iterator {
            Iterator(delegate: delegate, owner: owner, iteration: BodyOwner(delegate: delegate))
        }

        struct Iterator: AsyncIteratorProtocol {
            let delegate: StreamingTaskDelegate
            let owner: BodyOwner
            /// This iteration's own owner: the iterator going abandons the body.
            let iteration: BodyOwner

            mutating func next() async throws -> ArraySlice<UInt8>? {
                let delegate = self.delegate
                let chunk = try await delegate.buffer.next {
                    delegate.abandon()
                    return ParleyError(.cancelled, "The response body was cut short because the call was cancelled.")
                }
                if let chunk {
                    delegate.gate.consumed(chunk.count)
                    return chunk
                }
                guard delegate.completedNormally.withLock({ $0 }) else {
                    throw ParleyError(.cancelled, "The response body was cut short because the call was cancelled.")
                }
                return nil
            }
        }
    }
}
