#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes
import OpenAPIRuntime

/// Follows redirects by a ``RedirectPolicy`` around one hop function (the transport, below the middlewares).
struct RedirectFollower: Sendable {
    typealias Hop = @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    let policy: RedirectPolicy

    /// Header fields that describe a body, removed when a redirect turns the request into a GET.
    static let bodyFields: [HTTPField.Name] = [.contentType, .contentLength, .contentEncoding, .transferEncoding]
    /// The most bytes of a redirect's body read (so its connection can be reused) before it is dropped.
    static let drainLimit = 64 * 1024

    func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, hop: Hop) async throws -> (HTTPResponse, HTTPBody?) {
        guard policy.maxRedirects > 0 else { return try await hop(request, body, baseURL) }
        let first = request
        var request = request
        var body = body
        // Worked out at the first redirect only: most calls have none and pay nothing for this.
        var firstOrigin: Origin?
        var visited: Set<String> = []
        var hops = 0
        while true {
            let (response, responseBody) = try await hop(request, body, baseURL)
            let code = response.status.code
            guard [301, 302, 303, 307, 308].contains(code), let location = response.headerFields[.location] else {
                return (response, responseBody)
            }
            let from = request.absoluteURLString(baseURL: baseURL)
            func refuse(_ reason: String) async -> ParleyError {
                await Self.drain(responseBody)
                var error = ParleyError(
                    .redirect,
                    "The server redirected (\(code)) from \(Self.display(from)) to \(Self.display(location)), \(reason)"
                )
                error.response = response
                return error
            }
            guard hops < policy.maxRedirects else {
                throw await refuse(
                    "one hop more than the \(policy.maxRedirects) the client's RedirectPolicy allows; raise "
                        + "Configuration.redirects.maxRedirects if the chain is legitimate."
                )
            }
            guard let current = URL(string: from), let target = URL(string: location, relativeTo: current)?.absoluteURL,
                let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https",
                let host = target.host(percentEncoded: true), !host.isEmpty
            else {
                throw await refuse("which is not an http or https URL Parley can follow.")
            }
            if request.scheme?.lowercased() == "https", scheme == "http", !policy.allowsDowngrade {
                throw await refuse(
                    "which would leave https for plain http; set Configuration.redirects.allowsDowngrade to follow it."
                )
            }
            if firstOrigin == nil {
                firstOrigin = Origin(first, baseURL: baseURL)
                visited.insert(Self.key(first, baseURL: baseURL))
            }
            var next = request
            if code == 303 && request.method != .head || (code == 301 || code == 302) && request.method == .post {
                next.method = .get
                body = nil
                for name in Self.bodyFields { next.headerFields[name] = nil }
            } else if let sent = body, sent.iterationBehavior != .multiple {
                throw await refuse(
                    "which needs the request body sent again, but the body can be read only once (a stream); use a "
                        + "replayable body (bytes, JSON, a file) to follow \(code) redirects."
                )
            }
            next.scheme = scheme
            next.authority = Self.authority(of: target, host: host)
            var path = target.path(percentEncoded: true)
            if path.isEmpty { path = "/" }
            let query = target.query(percentEncoded: true)
            if let query { path += "?" + query }
            next.path = path
            if Origin(next, baseURL: baseURL) != firstOrigin {
                // Credentials are for the first origin only: the policy's, and whatever an auth middleware added.
                let added = OriginBoundCredentials.current
                for name in policy.credentialHeaderFields.union(added.headerFields) { next.headerFields[name] = nil }
                let items = policy.credentialQueryItems.union(added.queryItems)
                if let query, !items.isEmpty {
                    next.path = Self.removing(items, fromPath: path, query: query)
                }
            }
            guard visited.insert(Self.key(next, baseURL: baseURL)).inserted else {
                throw await refuse("which it visited before in this chain: a redirect loop.")
            }
            await Self.drain(responseBody)
            request = next
            hops += 1
        }
    }

    /// `path` with the query items named in `names` (compared once percent-decoded) removed from its `query`.
    static func removing(_ names: Set<String>, fromPath path: String, query: String) -> String {
        let kept = query.split(separator: "&", omittingEmptySubsequences: false).filter { item in
            let name = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let decoded = PercentEncoding.decode(name, plusAsSpace: true) ?? String(name)
            return !names.contains(decoded) && !names.contains(String(name))
        }
        let bare = path.dropLast(query.count + 1)
        return kept.isEmpty ? String(bare) : bare + "?" + kept.joined(separator: "&")
    }

    /// Reads up to ``drainLimit`` bytes of a body that will not be used, then drops it.
    static func drain(_ body: HTTPBody?) async {
        guard let body else { return }
        var count = 0
        do {
            for try await chunk in body {
                count += chunk.count
                if count > drainLimit { return }
            }
        } catch {
            return
        }
    }

    /// The loop-detection key: method and URL.
    private static func key(_ request: HTTPRequest, baseURL: URL) -> String {
        request.method.rawValue + " " + request.absoluteURLString(baseURL: baseURL)
    }

    /// `host[:port]` of `url`, IPv6 hosts in brackets.
    private static func authority(of url: URL, host: String) -> String {
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return url.port.map { "\(bracketed):\($0)" } ?? bracketed
    }

    /// A URL for an error message: without its query, which may hold credentials.
    private static func display(_ url: String) -> String {
        guard let mark = url.firstIndex(where: { $0 == "?" || $0 == "#" }) else { return url }
        return String(url[..<mark]) + "?…"
    }
}

/// Scheme, host and port: what must stay the same for credentials to follow a redirect.
private struct Origin: Hashable {
    let scheme: String
    let host: String
    let port: Int

    init(_ request: HTTPRequest, baseURL: URL) {
        let url = URL(string: request.absoluteURLString(baseURL: baseURL))
        scheme = url?.scheme?.lowercased() ?? ""
        host = url?.host(percentEncoded: true)?.lowercased() ?? ""
        port = url?.port ?? (scheme == "https" ? 443 : 80)
    }
}
