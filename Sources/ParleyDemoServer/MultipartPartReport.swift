/// What `POST /multipart` reports about one part; absent values are encoded as `null`.
struct MultipartPartReport: Encodable, Sendable {
    /// Largest text value reported in ``text``.
    static let maxText = 4096

    /// The `name` parameter of `Content-Disposition`, unquoted (not percent-decoded).
    let name: String
    /// The `filename` parameter, unquoted, or `nil`.
    let filename: String?
    /// The part's `Content-Type`, or `nil`.
    let contentType: String?
    /// Body length in bytes.
    let bytes: Int
    /// SHA-256 of the body in lowercase hex.
    let sha256: String
    /// The body as UTF-8 for a part without filename of at most ``maxText`` bytes, else `nil`.
    let text: String?
    /// The `Content-Disposition` header line as received (`Name: value`, leading blanks of the value dropped).
    let rawDisposition: String

    private enum CodingKeys: String, CodingKey {
        case name, filename, contentType, bytes, sha256, text, rawDisposition
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.name, forKey: .name)
        try container.encode(self.filename, forKey: .filename)
        try container.encode(self.contentType, forKey: .contentType)
        try container.encode(self.bytes, forKey: .bytes)
        try container.encode(self.sha256, forKey: .sha256)
        try container.encode(self.text, forKey: .text)
        try container.encode(self.rawDisposition, forKey: .rawDisposition)
    }
}
