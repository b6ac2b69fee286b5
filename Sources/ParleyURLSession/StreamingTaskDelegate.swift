#if canImport(FoundationNetworking)
import Foundation
import FoundationNetworking
#else
import Foundation
#endif
import OpenAPIRuntime
import Parley

/// The per-task delegate of one request: hands over the response head as soon as it arrives, then streams
/// the body chunk by chunk with back-pressure (``ResponseGate``), so nothing is buffered whole and a consumer
/// that stops cancels the task.
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
    private let stream: AsyncThrowingStream<ArraySlice<UInt8>, any Error>
    private let bodyContinuation: AsyncThrowingStream<ArraySlice<UInt8>, any Error>.Continuation
    /// The request body being streamed, if it is: stopped before the task is cancelled, and when it completes.
    private let upload: StreamedRequestBody?
    /// Holds the session's delivery of body data while the consumer is behind.
    private let gate: ResponseGate
    /// Called once the task completed (gives the session back to its pool).
    private let onComplete: @Sendable () -> Void

    init(upload: StreamedRequestBody?, gate: ResponseGate, onComplete: @escaping @Sendable () -> Void) {
        (stream, bodyContinuation) = AsyncThrowingStream<ArraySlice<UInt8>, any Error>.makeStream()
        self.upload = upload
        self.gate = gate
        self.onComplete = onComplete
        super.init()
    }

    /// Cancels `task`, first failing a streamed request body and opening the response gate: FoundationNetworking's
    /// `cancel()` waits for the session's queue, which may be waiting for either.
    func cancel(_ task: URLSessionTask) {
        upload?.cancel()
        gate.open()
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
                if resumeNow {
                    continuation.resume(throwing: ParleyError(.transport, "The request ended before its response head arrived."))
                } else {
                    URLSessionTransport.offCooperativeThreads { task.resume() }
                }
            }
        } onCancel: {
            cancel(task)
        }
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
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
        gate.received(data.count)
        bodyContinuation.yield(ArraySlice(data))
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
            bodyContinuation.finish(throwing: failure)
        } else {
            if let waiting, let response = task.response {
                waiting.resume(returning: response)
            } else {
                waiting?.resume(throwing: ParleyError(.transport, "URLSession finished without a response."))
            }
            completedNormally.withLock { $0 = true }
            bodyContinuation.finish()
        }
        onComplete()
    }

    /// Cancels the data task unless it already completed: the body was dropped before its end.
    func abandon() {
        guard !completedNormally.withLock({ $0 }) else { return }
        if let task = task.withLock({ $0 }) { cancel(task) }
    }

    /// The response body. It ends only when the task completed; a stream cut short by cancellation throws
    /// instead of looking like a complete body. Dropping the body (or its iterator) before the end cancels the
    /// task, so a size limit or an early error stops the download instead of letting it fill memory.
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

        func makeAsyncIterator() -> Iterator {
            Iterator(delegate: delegate, owner: owner, base: delegate.stream.makeAsyncIterator())
        }

        struct Iterator: AsyncIteratorProtocol {
            let delegate: StreamingTaskDelegate
            let owner: BodyOwner
            var base: AsyncThrowingStream<ArraySlice<UInt8>, any Error>.AsyncIterator

            mutating func next() async throws -> ArraySlice<UInt8>? {
                if let chunk = try await base.next() {
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
