import HTTPTypes
import Hummingbird
import NIOCore
import Parley

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Routes that check credentials: a bearer token issued by the server, Basic credentials and an API key.
///
/// - `POST /auth/token[?expiresIn=S][&scope=S]`: issues a new token (the previous one stops working) with the scopes
///   `scope` lists, space-separated (`read` when not given), answering like an
///   OAuth token endpoint: `{"access_token", "token_type": "Bearer", "expires_in"?, "number"}`.
/// - `POST /auth/rotate`: revokes the current token (204).
/// - `GET|POST /auth/me`: 200 `{"subject": "demo", "token": number}` for `Authorization: Bearer <current>`,
///   otherwise 401 with `WWW-Authenticate: Bearer error="invalid_token"`. A request body is read and ignored.
/// - `GET /auth/write`: as `/auth/me`, for a token with the scope `write`: 401 with
///   `Bearer error="invalid_token", scope="read", resource_metadata="…"` without the current token, 403 with
///   `Bearer error="insufficient_scope", scope="write"` (RFC 6750) for a token without it; 200
///   `{"subject": "demo", "token": number, "scope": "…"}` otherwise.
/// - `GET /.well-known/oauth-protected-resource/auth/write`: that resource's RFC 9728 metadata, naming the demo server
///   as its authorization server.
/// - `GET /.well-known/oauth-authorization-server`: RFC 8414 metadata whose token endpoint is `/auth/token` (which
///   issues a token to anyone: a demo).
/// - `GET /auth/stats`: `{"issued", "rotations", "accepted", "rejected"}` of `/auth/me`.
/// - `GET /auth/basic`: 200 `{"user": "ada"}` for Basic credentials ``basicUser`` / ``basicPassword``, else 401.
/// - `GET /auth/key`: 200 `{"via": "header"|"query"}` for ``apiKey`` in `X-API-Key` or query item `api_key`, else 401.
enum AuthRoutes {
    /// The user `/auth/basic` accepts.
    static let basicUser = "ada"
    /// The password `/auth/basic` accepts (non-ASCII and with a colon, to check UTF-8 and the first-colon split).
    static let basicPassword = "Analytical:Engine ✓ 1843"
    /// The key `/auth/key` accepts (with characters a query must percent-encode).
    static let apiKey = "pk_demo/+=&?#% 42"

    private struct Issued: Encodable {
        let access_token: String
        let token_type = "Bearer"
        let expires_in: Int?
        let number: Int
    }

    private struct ProtectedResource: Encodable {
        let resource: String
        let authorization_servers: [String]
        let scopes_supported: [String]
        let bearer_methods_supported: [String]
    }

    private struct AuthorizationServer: Encodable {
        let issuer: String
        let token_endpoint: String
        let scopes_supported: [String]
        let grant_types_supported: [String]
    }

    /// Registers the routes on `router`, backed by `store`.
    static func register(on router: Router<DemoRequestContext>, store: AuthStore) {
        router.post("auth/token") { request, _ -> Response in
            let expiresIn: Int?
            let items = RequestTarget(request).queryItems
            do throws(QueryError) {
                expiresIn = try items.int("expiresIn", in: 0...Int.max)
            } catch {
                return DemoResponses.error(error.message, status: .badRequest)
            }
            let scopes = items.first("scope").map { Set($0.split(separator: " ").map(String.init)) } ?? ["read"]
            let (token, number) = store.issue(scopes: scopes)
            return try DemoResponses.json(Issued(access_token: token, expires_in: expiresIn, number: number))
        }
        router.post("auth/rotate") { _, _ -> Response in
            store.rotate()
            return Response(status: .noContent)
        }
        let me: @Sendable (Request, DemoRequestContext) async throws -> Response = { request, context in
            _ = try await request.body.collect(upTo: context.maxUploadSize)
            guard let number = store.check(authorization: request.headers[.authorization]) else {
                return self.unauthorized(challenge: "Bearer error=\"invalid_token\"", error: "invalid_token")
            }
            return try DemoResponses.json(["subject": "demo", "token": "\(number)"])
        }
        router.get("auth/me", use: me)
        router.post("auth/me", use: me)
        router.get("auth/write") { request, _ -> Response in
            guard let (number, scopes) = store.checkScoped(authorization: request.headers[.authorization]) else {
                let metadata = "http://\(request.head.authority ?? "127.0.0.1")/.well-known/oauth-protected-resource/auth/write"
                let challenge = "Bearer error=\"invalid_token\", scope=\"read\", resource_metadata=\"\(metadata)\""
                return self.unauthorized(challenge: challenge, error: "invalid_token")
            }
            guard scopes.contains("write") else {
                var response = DemoResponses.error("insufficient_scope", status: .forbidden)
                response.headers[.wwwAuthenticate] = "Bearer error=\"insufficient_scope\", scope=\"write\""
                return response
            }
            let scope = scopes.sorted().joined(separator: " ")
            return try DemoResponses.json(["subject": "demo", "token": "\(number)", "scope": scope])
        }
        router.get(".well-known/oauth-protected-resource/auth/write") { request, _ -> Response in
            // RFC 9728 protected-resource metadata, as the 401 challenge of /auth/write names it (no authorization
            // server: the demo server's tokens come from POST /auth/token).
            let origin = "http://\(request.head.authority ?? "127.0.0.1")"
            return try DemoResponses.json(
                ProtectedResource(
                    resource: origin + "/auth/write",
                    authorization_servers: [origin],
                    scopes_supported: ["read", "write"],
                    bearer_methods_supported: ["header"]
                )
            )
        }
        router.get(".well-known/oauth-authorization-server") { request, _ -> Response in
            let origin = "http://\(request.head.authority ?? "127.0.0.1")"
            return try DemoResponses.json(
                AuthorizationServer(
                    issuer: origin,
                    token_endpoint: origin + "/auth/token",
                    scopes_supported: ["read", "write"],
                    grant_types_supported: ["client_credentials"]
                )
            )
        }
        router.get("auth/stats") { _, _ in try DemoResponses.json(store.stats) }
        router.get("auth/basic") { request, _ -> Response in
            guard let (user, password) = self.basicCredentials(request.headers[.authorization]),
                user == self.basicUser, password == self.basicPassword
            else {
                return self.unauthorized(challenge: "Basic realm=\"parley-demo\", charset=\"UTF-8\"", error: "bad credentials")
            }
            return try DemoResponses.json(["user": user])
        }
        router.get("auth/key") { request, _ -> Response in
            if HTTPField.Name("X-API-Key").flatMap({ request.headers[$0] }) == self.apiKey {
                return try DemoResponses.json(["via": "header"])
            }
            if RequestTarget(request).queryItems.first("api_key") == self.apiKey {
                return try DemoResponses.json(["via": "query"])
            }
            return self.unauthorized(challenge: "ApiKey", error: "missing or wrong API key")
        }
    }

    /// `(user, password)` from an `Authorization: Basic …` value, split at the first colon.
    private static func basicCredentials(_ authorization: String?) -> (String, String)? {
        guard let authorization, authorization.hasPrefix("Basic "),
            let data = Data(base64Encoded: String(authorization.dropFirst("Basic ".count))),
            let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":")
        else { return nil }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }

    /// 401 with `WWW-Authenticate: challenge` and `{"error": error}`.
    private static func unauthorized(challenge: String, error: String) -> Response {
        var response = DemoResponses.error(error, status: .unauthorized)
        response.headers[.wwwAuthenticate] = challenge
        return response
    }
}
