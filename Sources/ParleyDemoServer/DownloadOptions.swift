import HTTPTypes
import Parley

/// The query parameters of `GET /download`. `X-Cut-After` and `X-ETag` request headers set `cutAfter` and
/// `etag` too, leaving the URL as it is (a resumed download must ask for the same URL).
struct DownloadOptions: Sendable {
    /// Default `Last-Modified` time (2023-11-14T22:13:20Z) unless `modified=SECONDS` is given.
    static let defaultModified = 1_700_000_000

    /// Body size in bytes (`n`, default 1024).
    let size: Int
    /// The strong `ETag` sent: `"pattern-SIZE"`, or `etag=VALUE` quoted (kept verbatim if it is
    /// already quoted or weak).
    let etag: String
    /// The `Last-Modified` date sent (`modified=SECONDS` since 1970, default ``defaultModified``).
    let lastModified: String
    /// Whether `Range` is honoured and `Accept-Ranges: bytes` sent (`ranges=false` turns both off).
    let rangesEnabled: Bool
    /// Close the connection after this many body bytes of this response (`cutAfter=K`).
    let cutAfter: Int?
    /// Omit `Content-Length` and send the body chunked (`chunked=true`).
    let chunked: Bool
    /// Record the response's progress for `GET /written?key=K` (`key=K`).
    let key: String?

    /// Reads the options from `query`; throws for an invalid number.
    init(_ query: QueryItems, headers: HTTPFields = [:]) throws(QueryError) {
        let size = try query.int("n", in: 0...Int.max) ?? 1024
        self.size = size
        let etagHeader = HTTPField.Name("X-ETag").flatMap { headers[$0] }
        if let etag = etagHeader ?? query.first("etag") {
            self.etag = etag.hasPrefix("\"") || etag.hasPrefix("W/") ? etag : "\"\(etag)\""
        } else {
            self.etag = "\"pattern-\(size)\""
        }
        let modified = try query.int("modified", in: 0...253_402_300_799) ?? Self.defaultModified
        self.lastModified = HTTPDate.format(secondsSince1970: modified)
        self.rangesEnabled = query.first("ranges") != "false"
        if let cut = HTTPField.Name("X-Cut-After").flatMap({ headers[$0] }) {
            guard let count = Int(cut), count >= 0 else { throw QueryError(message: "X-Cut-After must be a byte count") }
            self.cutAfter = count
        } else {
            self.cutAfter = try query.int("cutAfter", in: 0...Int.max)
        }
        self.chunked = query.first("chunked") == "true"
        self.key = query.first("key")
    }
}
