import HTTPTypes
import OpenAPIRuntime

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Follows redirects by a ``RedirectPolicy`` around one hop function (the transport, below the middlewares): sends,
/// asks the ``RedirectState`` what to do with the answer, drains the redirect's body and sends the next hop.
struct RedirectFollower: Sendable {
    let policy: RedirectPolicy

    /// Sends `request` by `hop`, then each redirect the policy follows; `drain` drops a redirect's response body
    /// (a streamed one is read a little, so that its connection can be reused; one read whole is simply let go).
    ///
    /// The first hop is sent as it is (its target is the call's: no scope to bind, no closure to call through), and
    /// an answer that is not a redirect goes straight back: what following takes (its state, its loop) lives in
    /// ``follow(_:from:body:baseURL:drain:hop:)``'s frame, which a call without a redirect never allocates.
    func send(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        drain: (ResponseBody.Storage) async -> Void,
        hop: Pipeline.Handler
    ) async throws -> (HTTPResponse, ResponseBody.Storage) {
        let answer = try await hop(request, body, baseURL)
        guard policy.maxRedirects > 0, RedirectState.isRedirect(answer.0) else { return answer }
        return try await follow(answer, from: request, body: body, baseURL: baseURL, drain: drain, hop: hop)
    }

    /// Follows the redirect `answer` to `request` and the ones after it, as the policy says.
    @inline(never)
    private func follow(
        _ answer: (HTTPResponse, ResponseBody.Storage),
        from request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        drain: (ResponseBody.Storage) async -> Void,
        hop: Pipeline.Handler
    ) async throws -> (HTTPResponse, ResponseBody.Storage) {
        var (response, responseBody) = answer
        var request = request
        var body = body
        var state = RedirectState(first: request, policy: policy, baseURL: baseURL, added: OriginBoundCredentials.current)
        while true {
            switch state.decide(response, to: request, body: body.map { $0.iterationBehavior == .multiple }) {
            case .answer:
                return (response, responseBody)
            case .refuse(let error):
                await drain(responseBody)
                throw error.attaching(response: response)
            case .follow(let next, let keepsBody):
                await drain(responseBody)
                request = next
                if !keepsBody { body = nil }
            }
            (response, responseBody) =
                if let target = state.hopTarget {
                    try await Self.sending(to: target) { [request, body] in try await hop(request, body, baseURL) }
                } else {
                    try await hop(request, body, baseURL)
                }
            guard RedirectState.isRedirect(response) else { return (response, responseBody) }
        }
    }

    /// `send` with `target` as the call's request target (``CallScope/target``), when there is a call scope: the next
    /// hop's URL, taken apart once by ``RedirectState``, for the stages below.
    private static func sending<Result>(
        to target: RequestTarget,
        _ send: () async throws -> Result
    ) async throws -> Result {
        guard var scope = CallScope.current else { return try await send() }
        scope.target = target
        return try await CallScope.$current.withValue(scope) { try await send() }
    }
}
