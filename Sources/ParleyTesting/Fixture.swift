/// HTTP exchanges recorded by a ``RecordingTransport`` and answered again, offline, by a ``ReplayTransport``.
///
/// On disk a fixture is JSON laid out for diffs (one line per header field and per body), so that a re-recording
/// reviews well:
///
/// ```json
/// {
///   "format": "parley-fixture/1",
///   "redacted": {
///     "headers": ["Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-API-Key"],
///     "queryItems": ["access_token", "api_key", "apikey", "client_secret", "password", "token"],
///     "bodyKeys": ["access_token", "api_key", "client_secret", "id_token", "password", "refresh_token", "secret", "token"]
///   },
///   "exchanges": [
///     {
///       "request": {
///         "method": "POST",
///         "url": "http://127.0.0.1:8080/users?api_key=<redacted>",
///         "headers": [
///           ["Authorization", "Bearer <redacted>"],
///           ["Content-Type", "application/json"]
///         ],
///         "body": {"text": "{\"name\":\"Ada\",\"password\":\"<redacted>\"}"}
///       },
///       "response": {
///         "status": 200,
///         "reason": "OK",
///         "headers": [
///           ["Content-Type", "application/octet-stream"],
///           ["Content-Length", "4"]
///         ],
///         "body": {"base64": "AAEC/w=="}
///       }
///     }
///   ]
/// }
/// ```
///
/// Header fields are `[name, value]` pairs in the order they were sent or received (repeated names kept). A body
/// is `{"text": …}` when its bytes are valid UTF-8 and `{"base64": …}` otherwise; no `body` means the transport
/// had none (`nil`), which is not the same as an empty one (`{"text": ""}`). A body the caller stopped reading
/// before its end is marked `"incomplete": true` (see ``Body/isComplete``). `redacted` names what was replaced
/// by `<redacted>` while recording, so that a ``ReplayTransport`` can treat those values as wildcards.
public struct Fixture: Sendable, Hashable, Codable {
    /// The format tag of fixture files; a file with another tag is refused.
    public static let format = "parley-fixture/1"

    /// The names whose values were replaced by `<redacted>` while recording.
    public var redaction: FixtureRedaction
    /// The exchanges, in the order their requests were sent.
    public var exchanges: [Exchange]

    /// A fixture of `exchanges`, recorded with `redaction`.
    public init(exchanges: [Exchange] = [], redaction: FixtureRedaction = FixtureRedaction()) {
        self.exchanges = exchanges
        self.redaction = redaction
    }

    /// One request and the response the server gave to it.
    public struct Exchange: Sendable, Hashable, Codable {
        /// The request, as the transport sent it (after every middleware), secrets redacted.
        public var request: Request
        /// The response, as the transport returned it, secrets redacted.
        public var response: Response

        /// An exchange.
        public init(request: Request, response: Response) {
            self.request = request
            self.response = response
        }
    }

    /// A recorded request.
    public struct Request: Sendable, Hashable, Codable {
        /// The method, such as `GET`.
        public var method: String
        /// The absolute URL, query included. Replay matches its path and query, not its scheme and authority.
        public var url: String
        /// The header fields, in order.
        public var headers: [Field]
        /// The body, or `nil` when there was none.
        public var body: Body?

        /// A recorded request.
        public init(method: String, url: String, headers: [Field] = [], body: Body? = nil) {
            self.method = method
            self.url = url
            self.headers = headers
            self.body = body
        }
    }

    /// A recorded response.
    public struct Response: Sendable, Hashable, Codable {
        /// The status code.
        public var status: Int
        /// The reason phrase, such as `OK`.
        public var reason: String
        /// The header fields, in order.
        public var headers: [Field]
        /// The body, or `nil` when the transport returned none.
        public var body: Body?

        /// A recorded response.
        public init(status: Int, reason: String = "", headers: [Field] = [], body: Body? = nil) {
            self.status = status
            self.reason = reason
            self.headers = headers
            self.body = body
        }
    }

    private enum CodingKeys: String, CodingKey {
        case format, redaction = "redacted", exchanges
    }

    /// Decodes a fixture, refusing another format tag.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let format = try container.decode(String.self, forKey: .format)
        guard format == Self.format else {
            throw DecodingError.dataCorruptedError(
                forKey: .format,
                in: container,
                debugDescription: "format \(String(reflecting: format)) is not \(String(reflecting: Self.format))"
            )
        }
        redaction = try container.decodeIfPresent(FixtureRedaction.self, forKey: .redaction) ?? FixtureRedaction()
        exchanges = try container.decode([Exchange].self, forKey: .exchanges)
    }

    /// Encodes the fixture with its format tag.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.format, forKey: .format)
        try container.encode(redaction, forKey: .redaction)
        try container.encode(exchanges, forKey: .exchanges)
    }
}
