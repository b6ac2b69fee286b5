/// What a ``RecordingTransport`` replaces with `<redacted>` before anything reaches a fixture file.
///
/// Names are compared case-insensitively. The defaults cover the usual credentials; add your own with
/// ``adding(headerNames:queryItemNames:bodyKeys:)``:
///
/// ```swift
/// let redaction = FixtureRedaction().adding(headerNames: ["X-Session"], bodyKeys: ["pin"])
/// ```
///
/// - Header fields: the value becomes `<redacted>`; for `Authorization` and `Proxy-Authorization` the scheme is
///   kept (`Bearer <redacted>`), so the fixture still says how the request authenticated.
/// - Query items (in the URL, and fields of `application/x-www-form-urlencoded` bodies): the value becomes
///   `<redacted>`; the rest of the URL is left byte for byte.
/// - Body keys: in JSON bodies (a `Content-Type` containing `json`), the value of every member with one of
///   these names, at any depth, becomes the string `"<redacted>"` (objects and arrays included); the rest of
///   the text is left byte for byte. Form bodies: fields with these names, as for query items.
///
/// The names are written in the fixture (never the values), and a ``ReplayTransport`` treats every recorded
/// `<redacted>` as a wildcard, so requests whose secrets were redacted still match when replayed.
public struct FixtureRedaction: Sendable, Hashable, Codable {
    /// What a secret is replaced with.
    public static let placeholder = "<redacted>"

    /// `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`, `X-API-Key`.
    public static let defaultHeaderNames = ["Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-API-Key"]
    /// `access_token`, `api_key`, `apikey`, `client_secret`, `password`, `token`.
    public static let defaultQueryItemNames = ["access_token", "api_key", "apikey", "client_secret", "password", "token"]
    /// `access_token`, `api_key`, `client_secret`, `id_token`, `password`, `refresh_token`, `secret`, `token`.
    public static let defaultBodyKeys = [
        "access_token", "api_key", "client_secret", "id_token", "password", "refresh_token", "secret", "token",
    ]

    /// Header fields whose values are redacted, in requests and responses.
    public var headerNames: [String]
    /// Query items (and form fields) whose values are redacted.
    public var queryItemNames: [String]
    /// JSON members (and form fields) whose values are redacted, in request and response bodies.
    public var bodyKeys: [String]

    /// A redaction of these names; the defaults unless you pass your own lists (pass `[]` to redact none).
    public init(
        headerNames: [String] = Self.defaultHeaderNames,
        queryItemNames: [String] = Self.defaultQueryItemNames,
        bodyKeys: [String] = Self.defaultBodyKeys
    ) {
        self.headerNames = headerNames
        self.queryItemNames = queryItemNames
        self.bodyKeys = bodyKeys
    }

    /// This redaction with more names.
    public func adding(
        headerNames: [String] = [],
        queryItemNames: [String] = [],
        bodyKeys: [String] = []
    ) -> FixtureRedaction {
        FixtureRedaction(
            headerNames: self.headerNames + headerNames,
            queryItemNames: self.queryItemNames + queryItemNames,
            bodyKeys: self.bodyKeys + bodyKeys
        )
    }

    private enum CodingKeys: String, CodingKey {
        case headerNames = "headers", queryItemNames = "queryItems", bodyKeys
    }
}
