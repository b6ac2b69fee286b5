/// The query parameters of `GET /download`.
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
    init(_ query: QueryItems) throws(QueryError) {
        let size = try query.int("n", in: 0...Int.max) ?? 1024
        self.size = size
        if let etag = query.first("etag") {
            self.etag = etag.hasPrefix("\"") || etag.hasPrefix("W/") ? etag : "\"\(etag)\""
        } else {
            self.etag = "\"pattern-\(size)\""
        }
        let modified = try query.int("modified", in: 0...253_402_300_799) ?? Self.defaultModified
        self.lastModified = HTTPDate.format(secondsSince1970: modified)
        self.rangesEnabled = query.first("ranges") != "false"
        self.cutAfter = try query.int("cutAfter", in: 0...Int.max)
        self.chunked = query.first("chunked") == "true"
        self.key = query.first("key")
    }
}
