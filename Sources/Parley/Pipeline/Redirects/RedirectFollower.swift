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
    typealias Hop = @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    let policy: RedirectPolicy

    func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, hop: Hop) async throws -> (HTTPResponse, HTTPBody?) {
        guard policy.maxRedirects > 0 else { return try await hop(request, body, baseURL) }
        var request = request
        var body = body
        // Made at the first redirect only: most calls have none and pay nothing for it.
        var state: RedirectState?
        while true {
            let (response, responseBody) = try await hop(request, body, baseURL)
            guard RedirectState.isRedirect(response) else { return (response, responseBody) }
            if state == nil {
                state = RedirectState(first: request, policy: policy, baseURL: baseURL, added: OriginBoundCredentials.current)
            }
            let decision = state?.decide(response, to: request, body: body.map { $0.iterationBehavior == .multiple }) ?? .answer
            switch decision {
            case .answer:
                return (response, responseBody)
            case .refuse(var error):
                await UnusedBody.drain(responseBody)
                error.response = response
                throw error
            case .follow(let next, let keepsBody):
                await UnusedBody.drain(responseBody)
                request = next
                if !keepsBody { body = nil }
            }
        }
    }
}
