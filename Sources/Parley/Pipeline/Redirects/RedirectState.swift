package import HTTPTypes

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// The redirect decisions of one call, as a value: given each redirect response, whether to follow it and with which
/// request, or why not. It sends nothing and reads no body, so every rule of ``RedirectPolicy`` is tested without a
/// transport; ``RedirectFollower`` does the sending.
package struct RedirectState: Sendable {
    /// What to do with a redirect response.
    package enum Decision: Sendable {
        /// Hand the response to the caller as it is (a redirect with no `Location`).
        case answer
        /// Send `request` next; `keepsBody` says whether the request body goes with it (a 307/308) or not.
        case follow(HTTPRequest, keepsBody: Bool)
        /// Do not follow: `error` (a ``ParleyError/Kind/redirect``) says why.
        case refuse(ParleyError)
    }

    /// The status codes Parley follows.
    static let followed: Set<Int> = [301, 302, 303, 307, 308]
    /// Header fields that describe a body, removed when a redirect turns the request into a GET.
    static let bodyFields: [HTTPField.Name] = [.contentType, .contentLength, .contentEncoding, .transferEncoding]

    let policy: RedirectPolicy
    let baseURL: URL
    /// What the auth middlewares above added: kept to the first origin like the policy's credential fields.
    let added: OriginBoundCredentials
    private let firstOrigin: RequestTarget.Origin
    /// Hops followed so far.
    package private(set) var hops = 0
    /// The URL of the request of the last ``Decision/follow(_:keepsBody:)``, taken apart: the next hop's target.
    package private(set) var hopTarget: RequestTarget?
    /// Method and URL of every request of the chain, to find loops.
    private var visited: Set<String>

    /// The state of a call whose first request was `first`.
    package init(
        first: HTTPRequest,
        policy: RedirectPolicy,
        baseURL: URL,
        added: OriginBoundCredentials = OriginBoundCredentials()
    ) {
        self.policy = policy
        self.baseURL = baseURL
        self.added = added
        let target = RequestTarget.of(first, baseURL: baseURL)
        self.firstOrigin = target.origin
        self.visited = [Self.key(first.method, target)]
    }

    /// Whether `response` is a redirect Parley may follow (a status it follows, with a `Location`).
    package static func isRedirect(_ response: HTTPResponse) -> Bool {
        followed.contains(response.status.code) && response.headerFields[.location] != nil
    }

    /// What to do with `response`, the answer to `request`; `body` is `nil` without a request body, else whether it can
    /// be sent again.
    package mutating func decide(_ response: HTTPResponse, to request: HTTPRequest, body replayable: Bool?) -> Decision {
        let code = response.status.code
        guard Self.followed.contains(code), let location = response.headerFields[.location] else { return .answer }
        let current =
            hopTarget.flatMap { $0.describes(request, baseURL: baseURL) ? $0 : nil }
            ?? RequestTarget.of(request, baseURL: baseURL)
        let from = current.text
        func refuse(_ reason: String) -> Decision {
            .refuse(
                ParleyError(
                    .redirect,
                    "The server redirected (\(code)) from \(Self.display(from)) to \(Self.display(location)), \(reason)"
                )
            )
        }
        guard hops < policy.maxRedirects else {
            return refuse(
                "one hop more than the \(policy.maxRedirects) the client's RedirectPolicy allows; raise "
                    + "Configuration.redirects.maxRedirects if the chain is legitimate."
            )
        }
        guard let target = current.resolving(location), target.scheme == "http" || target.scheme == "https",
            !target.host.isEmpty, !target.hasBadPort
        else {
            return refuse("which is not an http or https URL Parley can follow.")
        }
        let scheme = target.scheme
        if current.scheme == "https", scheme == "http", !policy.allowsDowngrade {
            return refuse("which would leave https for plain http; set Configuration.redirects.allowsDowngrade to follow it.")
        }
        var next = request
        var keepsBody = replayable != nil
        if code == 303 && request.method != .head || (code == 301 || code == 302) && request.method == .post {
            next.method = .get
            keepsBody = false
            for name in Self.bodyFields { next.headerFields[name] = nil }
        } else if replayable == false {
            return refuse(
                "which needs the request body sent again, but the body can be read only once (a stream); use a "
                    + "replayable body (bytes, JSON, a file) to follow \(code) redirects."
            )
        }
        next.scheme = scheme
        next.authority = target.authority
        let path = target.pathAndQuery
        next.path = path
        if target.origin != firstOrigin {
            // Credentials are for the first origin only: the policy's, and whatever an auth middleware added.
            for name in policy.credentialHeaderFields.union(added.headerFields) { next.headerFields[name] = nil }
            let items = policy.credentialQueryItems.union(added.queryItems)
            if let query = target.queryText, !items.isEmpty {
                next.path = Self.removing(items, fromPath: path, query: String(query))
            }
        }
        let nextTarget = RequestTarget(next, baseURL: baseURL)
        guard visited.insert(Self.key(next.method, nextTarget)).inserted else {
            return refuse("which it visited before in this chain: a redirect loop.")
        }
        hops += 1
        hopTarget = nextTarget
        return .follow(next, keepsBody: keepsBody)
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

    /// The loop-detection key: method and URL.
    private static func key(_ method: HTTPRequest.Method, _ target: RequestTarget) -> String {
        method.rawValue + " " + target.text
    }

    /// A URL for an error message: without its query, which may hold credentials.
    private static func display(_ url: String) -> String {
        guard let mark = url.firstIndex(where: { $0 == "?" || $0 == "#" }) else { return url }
        return String(url[..<mark]) + "?…"
    }
}
