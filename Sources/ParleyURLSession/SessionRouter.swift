import Parley

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

/// The delegate of a session that ``URLSessionTransport`` owns: routes each task's events to that task's
/// ``StreamingTaskDelegate`` (per-task delegates are not honoured by FoundationNetworking on Linux).
final class SessionRouter: NSObject, URLSessionDataDelegate, Sendable {
    private let delegates = LockedState<[Int: StreamingTaskDelegate]>([:])

    func register(_ delegate: StreamingTaskDelegate, for task: URLSessionTask) {
        delegates.withLock { $0[task.taskIdentifier] = delegate }
    }

    private func delegate(for task: URLSessionTask, removing: Bool = false) -> StreamingTaskDelegate? {
        delegates.withLock { removing ? $0.removeValue(forKey: task.taskIdentifier) : $0[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        guard let delegate = delegate(for: dataTask) else {
            completionHandler(.cancel)
            return
        }
        delegate.urlSession(session, dataTask: dataTask, didReceive: response, completionHandler: completionHandler)
    }

    /// Authentication challenges (a 401 with `WWW-Authenticate`) are not answered by URLSession: the 401 comes
    /// back to Parley as a response, where auth middleware and validation deal with it. (FoundationNetworking
    /// hangs on `.performDefaultHandling` without credentials, and ends the task as cancelled on a rejection.)
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        delegate(for: task)?.rejectedChallenge()
        completionHandler(.rejectProtectionSpace, nil)
    }

    /// Redirects are not followed by URLSession: the 3xx comes back to Parley, whose `RedirectPolicy` follows it
    /// the same way on every transport (hop limit, loops, downgrade, credentials kept within the origin).
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        delegate(for: dataTask)?.urlSession(session, dataTask: dataTask, didReceive: data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        delegate(for: task, removing: true)?.urlSession(session, task: task, didCompleteWithError: error)
    }
}
