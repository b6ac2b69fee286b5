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
    func send(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        drain: (ResponseBody.Storage) async -> Void,
        hop: Pipeline.Handler
    ) async throws -> (HTTPResponse, ResponseBody.Storage) {
        guard policy.maxRedirects > 0 else { return try await hop(request, body, baseURL) }
        var request = request
        var body = body
        // Made at the first redirect only: most calls have none and pay nothing for it.
        var state: RedirectState?
        while true {
            // The first hop is sent as it is (its target is the call's): no scope to bind, no closure to call through.
            let (response, responseBody) =
                if let target = state?.hopTarget {
                    try await Self.sending(to: target) { try await hop(request, body, baseURL) }
                } else {
                    try await hop(request, body, baseURL)
                }
            guard RedirectState.isRedirect(response) else { return (response, responseBody) }
            if state == nil {
                state = RedirectState(first: request, policy: policy, baseURL: baseURL, added: OriginBoundCredentials.current)
            }
            let decision = state?.decide(response, to: request, body: body.map { $0.iterationBehavior == .multiple }) ?? .answer
            switch decision {
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
