import OpenAPIRuntime
import Parley

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

extension URLSessionTransport {
    /// Sends on an injected session with a completion-handler data task: the response arrives whole.
    func sendBuffered(
        _ urlRequest: URLRequest,
        method: HTTPRequest.Method,
        upload: StreamedRequestBody?
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let state = LockedState<BufferedTaskState>(.notStarted)
        let (data, urlResponse) = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(Data, URLResponse), any Error>) in
                Self.offCooperativeThreads { [session] in
                    let task = session.dataTask(with: urlRequest) { data, response, error in
                        upload?.finish()
                        if let error {
                            continuation.resume(throwing: upload?.failure() ?? Self.translate(error))
                        } else if let response {
                            continuation.resume(returning: (data ?? Data(), response))
                        } else {
                            continuation.resume(
                                throwing: ParleyError(.transport, "URLSession returned neither a response nor an error.")
                            )
                        }
                    }
                    let start = state.withLock { state -> Bool in
                        if case .cancelled = state { return false }
                        state = .running(task)
                        return true
                    }
                    if start { task.resume() } else { task.cancel() }
                }
            }
        } onCancel: {
            let task = state.withLock { state -> URLSessionTask? in
                defer { state = .cancelled }
                if case .running(let task) = state { return task }
                return nil
            }
            upload?.cancel()  // first: cancelling waits for the session's queue, which may be reading the body
            if let task { Self.offCooperativeThreads { task.cancel() } }
        }
        guard let http = urlResponse as? HTTPURLResponse else {
            throw ParleyError(.transport, "The response is not an HTTP response (\(type(of: urlResponse))).")
        }
        try Self.checkFraming(of: http)
        if method != .head, let limits = ResponseDecompression.forTransport,
            var inflation = InflationLimit(response: http, limits: limits), let failure = inflation.inflated(data.count)
        {
            // The session buffered the body whole before handing it over: this only keeps the limits the same.
            throw failure
        }
        return (Self.response(http), method == .head ? nil : HTTPBody(data))
    }
}

/// A buffered data task's life: not started, running, or cancelled before or while running.
private enum BufferedTaskState: Sendable {
    case notStarted
    case running(URLSessionTask)
    case cancelled
}
