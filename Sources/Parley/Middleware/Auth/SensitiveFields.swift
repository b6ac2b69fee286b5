public import HTTPTypes

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The header fields and query items whose values are secrets (tokens, keys, passwords, signatures, session cookies).
///
/// One list serves every place a request's values could leak or be shared:
/// - ``LoggingMiddleware`` and ``TracingMiddleware`` write `<redacted>` (`REDACTED` in a span's `url.full`) in place
///   of their values, and scrub them out of logged and recorded errors;
/// - ``ParleyError/curlCommand``, ``ParleyError/request`` and the error's texts show `<redacted>` in their place,
///   as does a ``CurlCommand``;
/// - an ``HTTPCache`` keeps a stored answer to the user who asked for it: every sensitive header field counts as if
///   the response varied on it (only its SHA-256 fingerprint is stored), and the query is part of the stored URL.
///
/// A client uses ``Client/Configuration/sensitiveFields`` (``default`` unless set), together with the credential lists
/// of its ``RedirectPolicy`` and whatever Parley's auth middlewares add (``OriginBoundCredentials``), under any name:
/// ``current`` is that union for the code running now.
///
/// ```swift
/// var configuration = Client.Configuration()
/// configuration.sensitiveFields = SensitiveFields().adding(headerFields: ["X-Session"], queryItems: ["otp"])
/// ```
public struct SensitiveFields: Sendable, Hashable {
    /// Header fields whose values are secrets.
    public var headerFields: Set<HTTPField.Name>
    /// Names of query items whose values are secrets, lowercased (compared without regard to case, after
    /// percent-decoding).
    public private(set) var queryItems: Set<String>

    /// The header fields that are secret by default: `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`,
    /// `X-API-Key`, `Api-Key`, `X-Auth-Token`, `X-Access-Token`, `X-Amz-Security-Token`, `X-CSRF-Token`,
    /// `X-Session-Token`.
    public static let defaultHeaderFields: Set<HTTPField.Name> = RedirectPolicy.defaultCredentialHeaderFields.union(
        [.setCookie]
            + [
                "Api-Key", "X-Auth-Token", "X-Access-Token", "X-Amz-Security-Token", "X-CSRF-Token", "X-Session-Token",
            ]
            .compactMap { HTTPField.Name($0) }
    )

    /// The query items that are secret by default: `access_token`, `api_key`, `apikey`, `key`, `token`, `password`,
    /// `secret`, `client_secret`, `signature`, `sig`, and the signatures and credentials of pre-signed URLs
    /// (`X-Amz-Signature`, `X-Amz-Credential`, `X-Amz-Security-Token`, `X-Goog-Signature`, `AWSAccessKeyId`).
    public static let defaultQueryItems: Set<String> = [
        "access_token", "api_key", "apikey", "key", "token", "password", "secret", "client_secret",
        "signature", "sig", "x-amz-signature", "x-amz-credential", "x-amz-security-token", "x-goog-signature",
        "awsaccesskeyid",
    ]

    /// ``defaultHeaderFields`` and ``defaultQueryItems``.
    public static let `default` = SensitiveFields()

    /// Nothing sensitive: start from here to list every name yourself (the defaults are then not secret).
    public static let none = SensitiveFields(headerFields: [], queryItems: [])

    /// The header fields `headerFields` and the query items `queryItems` (by default the usual ones).
    public init(headerFields: Set<HTTPField.Name> = Self.defaultHeaderFields, queryItems: Set<String> = Self.defaultQueryItems) {
        self.headerFields = headerFields
        self.queryItems = Set(queryItems.map { $0.lowercased() })
    }

    /// These and the header fields and query items given; a name that is not a valid field name is ignored.
    public func adding(headerFields: [String] = [], queryItems: [String] = []) -> SensitiveFields {
        var fields = self
        fields.headerFields.formUnion(headerFields.compactMap { HTTPField.Name($0) })
        fields.queryItems.formUnion(queryItems.map { $0.lowercased() })
        return fields
    }

    /// These and those of `other`.
    public func union(_ other: SensitiveFields) -> SensitiveFields {
        var fields = self
        fields.headerFields.formUnion(other.headerFields)
        fields.queryItems.formUnion(other.queryItems)
        return fields
    }

    /// These and the credentials an auth middleware added.
    public func union(_ credentials: OriginBoundCredentials) -> SensitiveFields {
        guard !credentials.headerFields.isEmpty || !credentials.queryItems.isEmpty else { return self }
        var fields = self
        fields.headerFields.formUnion(credentials.headerFields)
        fields.queryItems.formUnion(credentials.queryItems.map { $0.lowercased() })
        return fields
    }

    /// What the code running now treats as secret: in a `Client`'s call, its ``Client/Configuration/sensitiveFields``
    /// and the credential lists of its ``Client/Configuration/redirects``; else ``default``; with, in both cases, the
    /// credentials that Parley's auth middlewares above added (``OriginBoundCredentials/current``).
    public static var current: SensitiveFields {
        (CallScope.current?.sensitiveFields ?? .default).union(OriginBoundCredentials.current)
    }

    /// The fields a client treats as secret: its own and the credential lists of its redirect policy.
    static func of(_ configuration: Client.Configuration) -> SensitiveFields {
        SensitiveFields(
            headerFields: configuration.redirects.credentialHeaderFields,
            queryItems: configuration.redirects.credentialQueryItems
        )
        .union(configuration.sensitiveFields)
    }

    /// The values in `request` (and in its `url`) of these fields: its sensitive header values (and
    /// the credential after a scheme, as in `Bearer abc`), the values of its sensitive query items, its URL's user
    /// info, each raw and percent-decoded. What to scrub out of any text about the request.
    /// Values shorter than 4 characters are left out: they are shown as `<redacted>` where they stand (a header
    /// value, a query item), but replacing every `1` of a text would hide what it says.
    func secrets(in request: HTTPRequest, url: RequestTarget) -> [String] {
        var secrets = url.secrets(queryItems: queryItems)
        for field in request.headerFields where headerFields.contains(field.name) {
            secrets.append(field.value)
            secrets += field.value.split(separator: " ").dropFirst().map(String.init)
        }
        return secrets.filter { $0.count >= 4 }
    }

    /// A ``Redaction`` of ``secrets(in:url:)``.
    func redaction(of request: HTTPRequest, url: RequestTarget) -> Redaction {
        Redaction(secrets(in: request, url: url))
    }

    /// A ``Redaction`` of ``secrets(in:url:)`` for `request` relative to `baseURL`.
    func redaction(of request: HTTPRequest, baseURL: URL?) -> Redaction {
        redaction(of: request, url: RequestTarget(request, baseURL: baseURL))
    }
}

/// A middleware that adds a credential to the request (``OriginBoundCredentials``): Parley's auth middlewares. Among a
/// client's request middlewares it runs below the ``HTTPCache``, which could then not tell one user from another.
protocol CredentialMiddleware {}

extension APIKeyMiddleware: CredentialMiddleware {}
extension BasicAuthMiddleware: CredentialMiddleware {}
extension BearerAuthMiddleware: CredentialMiddleware {}
