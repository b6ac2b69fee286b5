#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes
import OpenAPIRuntime

/// Follows redirects by ``RedirectPolicy`` around one hop function (the transport).
struct RedirectFollower: Sendable {
    typealias Hop = @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    let policy: RedirectPolicy

    func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, hop: Hop) async throws -> (HTTPResponse, HTTPBody?) {
        try await hop(request, body, baseURL)
    }
}
