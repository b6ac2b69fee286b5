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

    /// A server-trust challenge (Apple platforms ask the delegate to evaluate the server's certificate chain) gets
    /// the system's default handling: rejecting it would fail every HTTPS request. Every other challenge (a 401 with
    /// `WWW-Authenticate`, a proxy's 407, a request for a client certificate) is not answered by URLSession: the
    /// response comes back to Parley, where auth middleware and validation deal with it. (FoundationNetworking
    /// hangs on `.performDefaultHandling` without credentials, and ends the task as cancelled on a rejection.)
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        let disposition = Self.disposition(forChallengeMethod: challenge.protectionSpace.authenticationMethod)
        if disposition == .rejectProtectionSpace { delegate(for: task)?.rejectedChallenge() }
        completionHandler(disposition, nil)
    }

    /// What the transport answers to a challenge whose protection space has `method`.
    static func disposition(forChallengeMethod method: String) -> URLSession.AuthChallengeDisposition {
        method == serverTrustMethod ? .performDefaultHandling : .rejectProtectionSpace
    }

    #if canImport(FoundationNetworking)
        /// `NSURLAuthenticationMethodServerTrust`, which FoundationNetworking marks unavailable (libcurl verifies the
        /// chain, and no such challenge is raised); the same value as Apple's constant.
        static let serverTrustMethod = "NSURLAuthenticationMethodServerTrust"
    #else
        /// The server-trust challenge's method.
        static let serverTrustMethod = NSURLAuthenticationMethodServerTrust
    #endif

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
