#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The current access token of one ``BearerAuthMiddleware`` and the single refresh in flight, if any.
///
/// A state machine behind a lock. Every request takes a ``Lease`` (the token and its generation) before it is
/// sent; a request that needs a new token while a refresh runs waits for that refresh instead of starting
/// another, so the provider is never called concurrently. A refresh runs in its own task to its end even when
/// every request waiting for it is cancelled (a half-finished OAuth refresh can burn a refresh token), and its
/// token is kept for the next request.
final class AccessTokenCache: Sendable {
    /// A token as handed to a request: its generation tells, after a 401, whether it has been replaced since.
    struct Lease: Sendable {
        let token: AccessToken
        let generation: UInt64
    }

    private typealias Waiter = CheckedContinuation<Lease, any Error>

    private struct State {
        /// The current token; `nil` before the first one.
        var lease: Lease?
        /// Requests waiting for the refresh in flight, by id; `nil` when no refresh runs.
        var waiters: [UInt64: Waiter]?
        /// Why the last refresh of the current token failed; `nil` once a refresh succeeds.
        var failure: ParleyError?
        var nextWaiterID: UInt64 = 0
    }

    /// What a request does next.
    private enum Step {
        case use(Lease)
        case fail(ParleyError)
        case wait
    }

    private let provider: any AccessTokenProvider
    /// Whether a 403 for want of scopes asks the provider for a new token (``AccessTokenProvider/stepsUpScopes``).
    let stepsUpScopes: Bool
    private let leeway: Duration
    private let state = LockedState(State())
    /// The owner of the refreshes, which outlive the calls that wait for them.
    private let tasks = TaskLoop()

    init(provider: any AccessTokenProvider, leeway: Duration) {
        self.provider = provider
        self.leeway = leeway
        stepsUpScopes = provider.stepsUpScopes
    }

    /// The token for a new request: the current one unless it is missing, expiring within the leeway, or failed
    /// its last refresh; otherwise the result of a refresh (the one in flight, or a new one).
    func lease() async throws(ParleyError) -> Lease {
        let now = Date.now
        let leeway = self.leeway
        let fast = state.withLock { state -> Lease? in
            guard state.waiters == nil, state.failure == nil, let lease = state.lease,
                !lease.token.expires(within: leeway, of: now)
            else { return nil }
            return lease
        }
        if let fast { return fast }
        return try await next({ AccessTokenRequest(reason: $0 == nil ? .initial : .refresh, stale: $0) }) { state in
            if state.waiters != nil { return .wait }
            if state.failure == nil, let lease = state.lease, !lease.token.expires(within: leeway, of: now) {
                return .use(lease)
            }
            return .wait
        }
    }

    /// The token to replay a request with after the server rejected `rejected` (with 401, or with 403 for want of
    /// scopes), as `rejection` says.
    ///
    /// If the token has been replaced since, the current one; if a refresh is in flight, its result; if the last
    /// refresh of this token failed, that failure (no new attempt for a request that was already in flight); else
    /// the result of a new refresh for `rejection`.
    func lease(after rejected: Lease, because rejection: AccessTokenRequest) async throws(ParleyError) -> Lease {
        try await next({ stale in
            var request = rejection
            request.stale = stale
            return request
        }) { state in
            if state.waiters != nil { return .wait }
            if let failure = state.failure { return .fail(failure) }
            if let lease = state.lease, lease.generation != rejected.generation { return .use(lease) }
            return .wait
        }
    }

    /// Decides under the lock with `decide`; `.wait` joins the refresh in flight or starts one, for the request that
    /// `request` makes of the token it replaces.
    private func next(
        _ request: @escaping @Sendable (AccessToken?) -> AccessTokenRequest,
        _ decide: @escaping @Sendable (inout State) -> Step
    ) async throws(ParleyError) -> Lease {
        let id = state.withLock { state in
            defer { state.nextWaiterID += 1 }
            return state.nextWaiterID
        }
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: Waiter) in
                    enum Outcome { case resumed(Result<Lease, any Error>), waiting, started(AccessToken?) }
                    let outcome = state.withLock { state -> Outcome in
                        if Task.isCancelled { return .resumed(.failure(CancellationError())) }
                        switch decide(&state) {
                        case .use(let lease): return .resumed(.success(lease))
                        case .fail(let error): return .resumed(.failure(error))
                        case .wait:
                            guard state.waiters == nil else {
                                state.waiters?[id] = continuation
                                return .waiting
                            }
                            state.waiters = [id: continuation]
                            return .started(state.lease?.token)
                        }
                    }
                    switch outcome {
                    case .resumed(let result): continuation.resume(with: result)
                    case .waiting: break
                    // One refresh shared by every waiting call, none of which may own it: in the cache's loop.
                    case .started(let stale): tasks.run { await self.refresh(request(stale)) }
                    }
                }
            } onCancel: {
                let waiter = state.withLock { $0.waiters?.removeValue(forKey: id) }
                waiter?.resume(throwing: CancellationError())
            }
        } catch let error as ParleyError {
            throw error
        } catch {
            throw ParleyError(.cancelled, "The call was cancelled while waiting for an access token.", underlying: error)
        }
    }

    /// Asks the provider for a token for `request`, stores the outcome and hands it to every waiter.
    private func refresh(_ request: AccessTokenRequest) async {
        let result: Result<AccessToken, ParleyError>
        do {
            result = .success(try await provider.token(for: request))
        } catch {
            result = .failure(Self.providerFailure(error, stale: request.stale))
        }
        let (waiters, outcome) = state.withLock { state -> ([Waiter], Result<Lease, ParleyError>) in
            let waiters = Array((state.waiters ?? [:]).values)
            state.waiters = nil
            switch result {
            case .success(let token):
                let lease = Lease(token: token, generation: (state.lease?.generation ?? 0) + 1)
                state.lease = lease
                state.failure = nil
                return (waiters, .success(lease))
            case .failure(let error):
                state.failure = error
                return (waiters, .failure(error))
            }
        }
        for waiter in waiters { waiter.resume(with: outcome.mapError { $0 as any Error }) }
    }

    /// The provider's failure as an ``ParleyError/Kind/authentication`` error that does not show `stale`.
    private static func providerFailure(_ error: any Error, stale: AccessToken?) -> ParleyError {
        let redaction = Redaction([stale?.value].compactMap { $0 })
        let scrubbed = redaction.scrub(error)
        let action = stale == nil ? "produce" : "refresh"
        return ParleyError(
            .authentication,
            "The access token provider failed to \(action) a token: \(scrubbed). "
                + "Check the provider's credentials and its token endpoint; the next request asks it again.",
            underlying: scrubbed
        )
    }
}
