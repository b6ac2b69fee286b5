import HTTPTypes

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

// The way out of a call: its errors classified and given the request, and the call's overall deadline.
extension Pipeline {
    // MARK: - Failures

    /// Every error of a call on its way out: a call whose task was cancelled fails as ``ParleyError/Kind/cancelled``
    /// (unless it already says timeout or cancelled), and the request is attached once.
    static func failure(
        _ error: ParleyError,
        request: HTTPRequest,
        sent: SentRequest.Record? = nil,
        baseURL: URL? = nil,
        sensitiveFields: SensitiveFields = .default
    ) -> ParleyError {
        var error = error
        if error.kind != .timeout, error.kind != .cancelled, Task.isCancelled {
            error = ParleyError(.cancelled, "The call was cancelled before it completed.", underlying: error)
        }
        let last = sent ?? SentRequest.Record(request: request, baseURL: baseURL)
        let sensitive = sensitiveFields.union(last.credentials)
        if error.request == nil { error.request = summary(of: request, sensitiveFields: sensitive) }
        if error.curlCommand == nil {
            // The request as the transport was handed it, else as the call built it; secrets redacted.
            error.curlCommand = CurlCommand(last.request, baseURL: last.baseURL, sensitiveFields: sensitive).description
        }
        // A server may quote a credential back (in its body, or an error's text): none leaves in an error. Credentials
        // are the sensitive header values and the query items an auth middleware added; a query item merely named like
        // one (`key`, `token`) is redacted in the URLs above, but its value is not hunted for in every text.
        let credentials = SensitiveFields(headerFields: sensitive.headerFields, queryItems: last.credentials.queryItems)
        return credentials.redaction(of: last.request, baseURL: last.baseURL).scrub(error)
    }

    /// What comes out of stages 6 to 9 as a `ParleyError`: the stages throw only `ParleyError`s, but a middleware may
    /// rethrow something else.
    static func classify(_ error: any Error) -> ParleyError {
        if let error = error as? ParleyError { return error }
        return ParleyError.wrapping(error, as: .middleware, "A middleware failed: \(error)")
    }

    /// A transport's failure as a `ParleyError` (``ParleyError/Kind/cancelled`` when the task was cancelled), with
    /// the user info of `request`'s URL, if it has any, scrubbed out of it.
    static func transportFailure(_ error: any Error, request: HTTPRequest? = nil) -> ParleyError {
        let failure: ParleyError
        if Task.isCancelled, !(error is ParleyError) {
            failure = ParleyError(.cancelled, "The call was cancelled while in the transport.", underlying: error)
        } else {
            failure = ParleyError.wrapping(error, as: .transport, "The transport failed: \(error)")
        }
        guard let request else { return failure }
        let secrets = RequestTarget(request, baseURL: nil).secrets()
        return secrets.isEmpty ? failure : Redaction(secrets).scrub(failure)
    }

    /// The method and URL of `request` for an error, user info and sensitive query items redacted.
    static func summary(of request: HTTPRequest, sensitiveFields: SensitiveFields = .default) -> ParleyError.RequestSummary {
        ParleyError.RequestSummary(
            method: request.method,
            url: RequestTarget(request, baseURL: nil).redacted(
                queryItems: sensitiveFields.queryItems,
                placeholder: Redaction.placeholder
            )
        )
    }

    /// Tells the request middlewares that observe outcomes that the call failed before any request reached them.
    func reportFailureBeforeSending(_ error: ParleyError, request: HTTPRequest, endpoint: String) {
        for case let observer as any CallOutcomeObserver in requestMiddlewares {
            observer.callFailedBeforeSending(error, request: request, endpoint: endpoint)
        }
    }

    /// Tells the middlewares (either list) that observe outcomes that the call failed after the chain.
    func reportFailureAfterChain(_ error: ParleyError, request: HTTPRequest, endpoint: String) {
        guard error.kind.arisesAfterChain else { return }
        for case let observer as any CallOutcomeObserver in middlewares {
            observer.callFailedAfterChain(error, request: request, endpoint: endpoint)
        }
        for case let observer as any CallOutcomeObserver in requestMiddlewares {
            observer.callFailedAfterChain(error, request: request, endpoint: endpoint)
        }
    }

    // MARK: - Deadline

    /// `operation` within the call's `timeout` (``Deadline``), failing with ``ParleyError/Kind/timeout``.
    static func within<Value: Sendable>(
        _ timeout: Duration,
        what: String = "The call",
        _ operation: @escaping @Sendable () async throws(ParleyError) -> Value
    ) async throws(ParleyError) -> Value {
        do {
            return try await Deadline.run(
                within: timeout,
                expired: {
                    ParleyError(
                        .timeout,
                        "\(what) did not complete within its timeout of \(timeout) (the endpoint's timeout, or "
                            + "Client.Configuration.timeout); raise it if the server is legitimately this slow."
                    )
                },
                operation
            )
        } catch let error as ParleyError {
            throw error
        } catch {
            throw ParleyError.wrapping(error, as: .transport, "The call failed: \(error)")
        }
    }
}
