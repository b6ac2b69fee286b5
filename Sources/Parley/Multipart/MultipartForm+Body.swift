import OpenAPIRuntime

extension MultipartForm {
    /// The encoded body (known length, replayable) and its content type.
    func makeBody() throws(ParleyError) -> (body: HTTPBody, contentType: String) {
        var form = self
        for part in parts {
            if let type = part.contentType, type.isEmpty || type.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
                throw ParleyError(
                    .invalidRequest,
                    "The content type \(String(reflecting: type)) of the multipart part \(String(reflecting: part.name)) is "
                        + "empty or has control characters (CR, LF); it cannot go into a header. Nothing was sent."
                )
            }
        }
        var attempts = 0
        while let colliding = form.partContainingBoundary() {
            attempts += 1
            guard form.randomBoundary, attempts < 8 else {
                throw ParleyError(
                    .invalidRequest,
                    "The content of the multipart part \(String(reflecting: colliding)) contains the boundary "
                        + "\(String(reflecting: form.boundary)), so the server would split the body in the wrong place. "
                        + "Choose another boundary, or let Parley draw a random one. Nothing was sent."
                )
            }
            form.boundary = Self.randomBoundary()
        }
        let body = HTTPBody(
            MultipartChunks(form: form),
            length: .known(form.contentLength),
            iterationBehavior: .multiple
        )
        return (body, form.contentType)
    }

    /// The name of the first in-memory part whose content contains the delimiter, if any.
    private func partContainingBoundary() -> String? {
        for part in parts {
            guard case .bytes(let bytes) = part.content else { continue }
            var scanner = DelimiterScanner(boundary: boundary)
            if scanner.found(in: bytes[...]) { return part.name }
        }
        return nil
    }
}

/// Finds `CRLF--boundary` in a part's content read chunk by chunk; the content is taken to start after a CRLF
/// (the end of the part's headers), as a parser sees it.
struct DelimiterScanner {
    let delimiter: [UInt8]
    private var carry: [UInt8] = [0x0D, 0x0A]

    init(boundary: String) {
        delimiter = Array("\r\n--\(boundary)".utf8)
    }

    /// Whether the delimiter ends in `chunk` (possibly starting in an earlier chunk).
    mutating func found(in chunk: ArraySlice<UInt8>) -> Bool {
        var window = carry
        window.append(contentsOf: chunk.prefix(delimiter.count - 1))
        if Self.contains(window[...], delimiter) { return true }
        if Self.contains(chunk, delimiter) { return true }
        let keep = delimiter.count - 1
        if chunk.count >= keep {
            carry = Array(chunk.suffix(keep))
        } else {
            carry.append(contentsOf: chunk)
            carry = Array(carry.suffix(keep))
        }
        return false
    }

    private static func contains(_ haystack: ArraySlice<UInt8>, _ needle: [UInt8]) -> Bool {
        guard let first = needle.first, haystack.count >= needle.count else { return false }
        var start = haystack.startIndex
        let last = haystack.endIndex - needle.count
        while start <= last, let candidate = haystack[start...last].firstIndex(of: first) {
            if haystack[candidate..<(candidate + needle.count)].elementsEqual(needle) { return true }
            start = candidate + 1
        }
        return false
    }
}

/// The encoded form, part by part; file contents are read while iterating.
struct MultipartChunks: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>
    let form: MultipartForm

    func makeAsyncIterator() -> Iterator { Iterator(form: form) }

    struct Iterator: AsyncIteratorProtocol {
        let form: MultipartForm
        var index = 0
        var file: (chunks: FileChunks.Iterator, scanner: DelimiterScanner, name: String)?
        var finished = false

        mutating func next() async throws -> ArraySlice<UInt8>? {
            if var current = file {
                file = nil
                if let chunk = try await current.chunks.next() {
                    guard !current.scanner.found(in: chunk) else {
                        throw ParleyError(
                            .invalidRequest,
                            "The file of the multipart part \(String(reflecting: current.name)) contains the boundary "
                                + "\(String(reflecting: form.boundary)); the upload was stopped before the server could "
                                + "split the body in the wrong place. Send it again with another boundary."
                        )
                    }
                    file = current
                    return chunk
                }
            }
            guard !finished else { return nil }
            guard index < form.parts.count else {
                finished = true
                return MultipartForm.closing(form.boundary)[...]
            }
            let part = form.parts[index]
            var bytes = MultipartForm.head(of: part, boundary: form.boundary, first: index == 0)
            index += 1
            switch part.content {
            case .bytes(let content):
                bytes.append(contentsOf: content)
            case .file(let chunks):
                file = (chunks.makeAsyncIterator(), DelimiterScanner(boundary: form.boundary), part.name)
            }
            return bytes[...]
        }
    }
}
