#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A `multipart/form-data` body (RFC 7578): text fields, in-memory parts and files streamed from disk.
///
/// ```swift
/// var form = MultipartForm()
/// form.append("title", value: "Holiday")
/// try form.append("photo", file: URL(filePath: "beach.jpg"), contentType: "image/jpeg")
/// let upload = client.upload(UploadPhoto(), body: .multipart(form))
/// ```
///
/// Files are read only while the body is sent, a chunk at a time, and are reopened if the body is sent again
/// (by a retry). The total length is computed up front, so the request has a `Content-Length` and progress has
/// a total. Names and filenames are escaped the way browsers do (`"` as `%22`, CR as `%0D`, LF as `%0A`). The
/// boundary is 128 random bits; if a part's content contains it anyway, another is drawn (in-memory parts) or
/// the upload fails rather than send a body the server would split wrongly (files).
public struct MultipartForm: Sendable {
    enum Content: Sendable {
        case bytes([UInt8])
        case file(FileChunks)

        var count: Int64 {
            switch self {
            case .bytes(let bytes): Int64(bytes.count)
            case .file(let file): file.size
            }
        }
    }

    struct Part: Sendable {
        var name: String
        var filename: String?
        var contentType: String?
        var content: Content
    }

    /// The boundary between parts.
    public internal(set) var boundary: String
    /// Whether the boundary was drawn at random (and may be drawn again on a collision).
    let randomBoundary: Bool
    var parts: [Part] = []

    /// An empty form with a random boundary.
    public init() {
        boundary = Self.randomBoundary()
        randomBoundary = true
    }

    /// An empty form with your boundary: 1 to 70 characters from RFC 2046's set (letters, digits and
    /// `'()+_,-./:=?` and space, not ending in a space).
    public init(boundary: String) throws(ParleyError) {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'()+_,-./:=? ")
        guard (1...70).contains(boundary.count), boundary.allSatisfy(allowed.contains), boundary.last != " " else {
            throw ParleyError(
                .invalidRequest,
                "The multipart boundary \(String(reflecting: boundary)) is not valid: RFC 2046 allows 1 to 70 letters, digits "
                    + "and '()+_,-./:=? or spaces, not ending in a space. Leave it out to get a random one."
            )
        }
        self.boundary = boundary
        randomBoundary = false
    }

    /// Appends a text field (UTF-8, no content type, as a browser sends an `<input>`).
    public mutating func append(_ name: String, value: String) {
        parts.append(Part(name: name, filename: nil, contentType: nil, content: .bytes(Array(value.utf8))))
    }

    /// Appends bytes held in memory, optionally as a file with a name and a content type.
    public mutating func append(_ name: String, data: Data, filename: String? = nil, contentType: String? = nil) {
        parts.append(Part(name: name, filename: filename, contentType: contentType, content: .bytes(Array(data))))
    }

    /// Appends a file streamed from disk. The file must exist now (its size goes into the total) and keep its
    /// size until sent. `filename` defaults to the file's last path component.
    public mutating func append(
        _ name: String,
        file: URL,
        filename: String? = nil,
        contentType: String = "application/octet-stream"
    ) throws(ParleyError) {
        let chunks = try FileChunks(path: try Self.path(of: file))
        parts.append(
            Part(name: name, filename: filename ?? file.lastPathComponent, contentType: contentType, content: .file(chunks))
        )
    }

    /// `multipart/form-data; boundary=…`.
    public var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    /// The exact length of the encoded body.
    public var contentLength: Int64 {
        var total = Int64(Self.closing(boundary).count)
        for (index, part) in parts.enumerated() {
            total += Int64(Self.head(of: part, boundary: boundary, first: index == 0).count) + part.content.count
        }
        return total
    }

    /// The bytes before a part's content: the delimiter (after the previous part's CRLF) and the part's headers.
    static func head(of part: Part, boundary: String, first: Bool) -> [UInt8] {
        var text = first ? "" : "\r\n"
        text += "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(escape(part.name))\""
        if let filename = part.filename { text += "; filename=\"\(escape(filename))\"" }
        text += "\r\n"
        if let contentType = part.contentType { text += "Content-Type: \(contentType)\r\n" }
        text += "\r\n"
        return Array(text.utf8)
    }

    /// The bytes after the last part.
    static func closing(_ boundary: String) -> [UInt8] {
        Array("\r\n--\(boundary)--\r\n".utf8)
    }

    /// A name or filename inside its quotes, escaped as browsers do (WHATWG HTML, multipart/form-data encoding).
    static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "%22"
            case "\r": escaped += "%0D"
            case "\n": escaped += "%0A"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    static func randomBoundary() -> String {
        let high = UInt64.random(in: .min ... .max), low = UInt64.random(in: .min ... .max)
        return "parley-" + String(high, radix: 16) + String(low, radix: 16)
    }

    static func path(of file: URL) throws(ParleyError) -> String {
        guard file.isFileURL else {
            throw ParleyError(
                .invalidRequest,
                "\(file) is not a file URL; pass URL(filePath:) of a local file. Nothing was sent."
            )
        }
        return file.path(percentEncoded: false)
    }
}
