#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Finds where a protected resource's tokens come from: its metadata (RFC 9728), then its authorization servers'
/// (RFC 8414 or OpenID Connect Discovery), each at the URLs and in the order the MCP authorization specification
/// (2026-07-28) gives, and each checked to describe what was asked for.
///
/// ```swift
/// let discovery = OAuthDiscovery(using: Client(baseURL: baseURL))
/// let resource = try await discovery.protectedResource(baseURL.appending(path: "auth/write"))
/// let issuer = try await discovery.authorizationServer(resource.authorizationServers[0])
/// print(resource.scopesSupported ?? [], issuer.tokenEndpoint ?? "")   // ["read", "write"] http://…/auth/token
/// ```
///
/// - **Protected resource**: the `resource_metadata` URL of the server's `WWW-Authenticate` challenge when there is
///   one (``AccessTokenRequest/resourceMetadata``), else the path-based well-known URL
///   (`/.well-known/oauth-protected-resource/mcp` for `…/mcp`), then the root one. A document is used only when its
///   `resource` is the resource's URL (scheme and host compared without regard to case) and it names at least one
///   authorization server; one that names another resource fails the discovery at once, since it is the answer of a
///   server that means another resource.
/// - **Authorization server**: for an issuer with a path (`https://auth.example/tenant1`), the RFC 8414 URL with the
///   path after the well-known part, the OpenID Connect one the same way, then OpenID Connect's own (the path first);
///   for an issuer without one, the RFC 8414 URL, then OpenID Connect's. The document's `issuer` must be the issuer
///   asked about, character for character (RFC 8414 section 3.3): otherwise its endpoints are not used.
/// - **Only HTTPS**, or HTTP to a loopback address (127.0.0.1, ::1, `localhost`), for every URL it fetches.
/// - A URL that does not answer 2xx with such a document is passed over for the next one; the error after the last
///   says what each answered. Documents are read within 256 KiB and the client's timeouts.
///
/// It sends its requests through the transport and configuration of the client it is given, without its middlewares
/// (no credential goes to a metadata URL) and with its own base URL per origin.
public struct OAuthDiscovery: Sendable {
    private let transport: any ClientTransport
    private let configuration: Client.Configuration

    /// The most bytes of a metadata document that are read.
    public static let maxDocumentSize = 256 * 1024

    /// Discovery over `client`'s transport and configuration (not its middlewares or base URL).
    public init(using client: Client) {
        transport = client.transport
        var configuration = client.configuration
        configuration.maxResponseBodySize = min(configuration.maxResponseBodySize, Self.maxDocumentSize)
        configuration.timeout = configuration.timeout ?? .seconds(30)
        self.configuration = configuration
    }

    /// The metadata of the protected resource at `resource`, from `metadataURL` (a challenge's `resource_metadata`)
    /// when given, else from the well-known URLs.
    public func protectedResource(
        _ resource: URL,
        metadataURL: String? = nil
    ) async throws(ParleyError) -> ProtectedResourceMetadata {
        let target = RequestTarget(resource)
        try Self.checkFetchable(target, what: "The protected resource's URL")
        let origin = "\(target.scheme)://\(target.authority)"
        var candidates: [String] = []
        if let metadataURL { candidates.append(metadataURL) }
        let path = target.path.hasSuffix("/") ? target.path.dropLast() : target.path
        if !path.isEmpty { candidates.append(origin + "/.well-known/oauth-protected-resource" + path) }
        candidates.append(origin + "/.well-known/oauth-protected-resource")
        var passed: [String] = []
        for candidate in candidates {
            let document: ProtectedResourceMetadata
            switch try await fetch(ProtectedResourceMetadata.self, from: candidate) {
            case .failure(let reason):
                passed.append(reason.reason)
                continue
            case .success(let found):
                document = found
            }
            guard Self.sameResource(document.resource, target) else {
                throw ParleyError(
                    .authentication,
                    "OAuth discovery: the protected-resource metadata at \(Self.shown(candidate)) describes "
                        + "\(Self.shown(document.resource)), not \(target.redacted) (RFC 9728 section 3.3); refusing to "
                        + "use its authorization servers. Check the server's URL."
                )
            }
            guard !document.authorizationServers.isEmpty else {
                passed.append("\(Self.shown(candidate)) names no authorization server")
                continue
            }
            return document
        }
        throw ParleyError(
            .authentication,
            "OAuth discovery: no protected-resource metadata for \(target.redacted) (RFC 9728): "
                + passed.joined(separator: "; ") + ". The server does not say where its tokens come from; "
                + "configure the authorization server yourself."
        )
    }

    /// The metadata of the authorization server whose issuer identifier is `issuer`.
    public func authorizationServer(_ issuer: String) async throws(ParleyError) -> AuthorizationServerMetadata {
        let target = RequestTarget(issuer)
        try Self.checkFetchable(target, what: "The issuer")
        guard target.queryText == nil, !issuer.contains("#") else {
            throw ParleyError(
                .authentication,
                "OAuth discovery: the issuer \(Self.shown(issuer)) has a query or a fragment, which an issuer "
                    + "identifier may not have (RFC 8414 section 2)."
            )
        }
        let origin = "\(target.scheme)://\(target.authority)"
        let path = target.path.hasSuffix("/") ? target.path.dropLast() : target.path
        let candidates =
            path.isEmpty
            ? [origin + "/.well-known/oauth-authorization-server", origin + "/.well-known/openid-configuration"]
            : [
                origin + "/.well-known/oauth-authorization-server" + path,
                origin + "/.well-known/openid-configuration" + path,
                origin + path + "/.well-known/openid-configuration",
            ]
        var passed: [String] = []
        for candidate in candidates {
            switch try await fetch(AuthorizationServerMetadata.self, from: candidate) {
            case .failure(let reason):
                passed.append(reason.reason)
            case .success(let document):
                guard document.issuer == issuer else {
                    throw ParleyError(
                        .authentication,
                        "OAuth discovery: the authorization server metadata at \(Self.shown(candidate)) names the "
                            + "issuer \(Self.shown(document.issuer)), not \(Self.shown(issuer)) (RFC 8414 section 3.3); "
                            + "refusing to use its endpoints."
                    )
                }
                return document
            }
        }
        throw ParleyError(
            .authentication,
            "OAuth discovery: no authorization server metadata for the issuer \(Self.shown(issuer)) (RFC 8414, "
                + "OpenID Connect Discovery): " + passed.joined(separator: "; ") + "."
        )
    }

    // MARK: - Fetching

    /// A metadata document: `Document` decoded from a 2xx answer at `url`, or why not (for the error's list). A
    /// cancelled discovery is thrown as it is: it tries no further URL.
    private func fetch<Document: Decodable & Sendable>(
        _ type: Document.Type,
        from url: String
    ) async throws(ParleyError) -> Result<Document, Passed> {
        let target = RequestTarget(url)
        do throws(ParleyError) {
            try Self.checkFetchable(target, what: "The metadata URL")
        } catch {
            return .failure(Passed("\(Self.shown(url)) is not fetched: \(error.message)"))
        }
        guard let origin = URL(string: "\(target.scheme)://\(target.authority)") else {
            return .failure(Passed("\(Self.shown(url)) is not a URL"))
        }
        let client = Client(baseURL: origin, transport: transport, configuration: configuration)
        do {
            return .success(try await client.send(MetadataDocument<Document>(path: Path(percentEncoded: target.pathAndQuery))))
        } catch {
            if error.kind == .cancelled { throw error }
            let reason =
                switch error.kind {
                case .unacceptableStatus: "answered \(error.status?.code ?? 0)"
                case .decoding: "answered no such document"
                default: "failed (\(error.kind))"
                }
            return .failure(Passed("\(Self.shown(url)) \(reason)"))
        }
    }

    /// Why a URL was passed over.
    private struct Passed: Error {
        let reason: String

        init(_ reason: String) {
            self.reason = reason
        }
    }

    /// Refuses a URL that is not HTTPS, or HTTP to a loopback address.
    private static func checkFetchable(_ target: RequestTarget, what: String) throws(ParleyError) {
        let loopback = ["127.0.0.1", "::1", "localhost"].contains(target.host.lowercased())
        guard target.scheme == "https" || (target.scheme == "http" && loopback), !target.host.isEmpty else {
            throw ParleyError(
                .authentication,
                "OAuth discovery: \(what) \(target.redacted) is not an https URL (plain http is allowed only to "
                    + "127.0.0.1, ::1 or localhost)."
            )
        }
    }

    /// Whether `identifier` (a document's `resource`) names `target`: the same URL, its scheme and host compared
    /// without regard to case.
    private static func sameResource(_ identifier: String, _ target: RequestTarget) -> Bool {
        let named = RequestTarget(identifier)
        return named.origin == target.origin && named.pathAndQuery == target.pathAndQuery
            && !identifier.contains("#")
    }

    /// Text a server sent, for a message: its user info hidden, at most 200 characters of it.
    private static func shown(_ text: String) -> String {
        let redacted = RequestTarget(text).redacted
        return String(reflecting: redacted.count > 200 ? redacted.prefix(200) + "…" : redacted)
    }
}

/// `GET` of a metadata document at an already encoded path.
private struct MetadataDocument<Document: Decodable & Sendable>: Endpoint {
    typealias Response = Document
    let path: Path
    var headers: Headers { ["Accept": "application/json"] }
}
