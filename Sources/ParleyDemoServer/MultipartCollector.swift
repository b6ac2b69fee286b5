import Crypto
import MultipartKit
import NIOCore

/// Feeds a streamed `multipart/form-data` body to multipart-kit's `MultipartParser` and summarises
/// each part as it streams: bodies are hashed on the fly, so file parts are never held in memory.
///
/// Not `Sendable`: one request handler owns it.
final class MultipartCollector {
    /// The part being read.
    private struct PartInProgress {
        var headers: [(name: String, value: String)] = []
        var bytes = 0
        var hasher = SHA256()
        var prefix: [UInt8] = []
    }

    private let parser: MultipartParser
    private var closeDelimiter: DelimiterScanner
    private var partDelimiter: DelimiterScanner
    private var current: PartInProgress?
    private var parts: [MultipartPartReport] = []
    private var failure: String?

    /// Parses a body whose parts are separated by `boundary` (1 to 70 characters).
    init(boundary: String) {
        self.parser = MultipartParser(boundary: boundary)
        self.closeDelimiter = DelimiterScanner(pattern: Array("\r\n--\(boundary)--".utf8))
        self.partDelimiter = DelimiterScanner(pattern: Array("\r\n--\(boundary)\r\n".utf8))
        // The first delimiter may come without a CRLF before it.
        self.closeDelimiter.scan(Array("\r\n".utf8))
        self.partDelimiter.scan(Array("\r\n".utf8))
        self.parser.onHeader = { [weak self] name, value in
            self?.addHeader(name: name, value: value)
        }
        self.parser.onBody = { [weak self] buffer in
            self?.append(buffer)
        }
        self.parser.onPartComplete = { [weak self] in
            self?.completePart()
        }
    }

    /// Parses the next piece of the body.
    func feed(_ buffer: ByteBuffer) throws(MultipartFailure) {
        buffer.withUnsafeReadableBytes { bytes in
            self.closeDelimiter.scan(bytes)
            self.partDelimiter.scan(bytes)
        }
        do {
            try self.parser.execute(buffer)
        } catch {
            if self.closeDelimiter.found, !self.partDelimiter.found {
                throw MultipartFailure("the body has no parts, only the closing delimiter")
            }
            throw MultipartFailure("invalid delimiter or header line in part \(self.parts.count + 1)")
        }
        if let failure = self.failure { throw MultipartFailure(failure) }
    }

    /// Checks that the body was complete and returns its parts in order.
    func finish() throws(MultipartFailure) -> [MultipartPartReport] {
        guard self.closeDelimiter.found, self.current == nil else {
            throw MultipartFailure("the body ended before the closing delimiter (in part \(self.parts.count + 1))")
        }
        return self.parts
    }

    private func addHeader(name: String, value: String) {
        var part = self.current ?? PartInProgress()
        part.headers.append((name, value))
        self.current = part
    }

    private func append(_ buffer: ByteBuffer) {
        var part = self.current ?? PartInProgress()
        buffer.withUnsafeReadableBytes { part.hasher.update(bufferPointer: $0) }
        part.bytes += buffer.readableBytes
        if part.prefix.count <= MultipartPartReport.maxText {
            part.prefix.append(contentsOf: buffer.readableBytesView.prefix(MultipartPartReport.maxText + 1 - part.prefix.count))
        }
        self.current = part
    }

    private func completePart() {
        let part = self.current ?? PartInProgress()
        self.current = nil
        guard self.failure == nil else { return }
        let number = self.parts.count + 1
        let header = { (name: String) in part.headers.first { $0.name.lowercased() == name } }
        guard let disposition = header("content-disposition") else {
            self.failure = "part \(number) has no Content-Disposition header"
            return
        }
        guard let parameters = HeaderParameters(disposition.value), parameters.value.lowercased() == "form-data" else {
            self.failure = "part \(number): Content-Disposition is not a valid form-data disposition: \(disposition.value)"
            return
        }
        guard let name = parameters.first("name") else {
            self.failure = "part \(number): Content-Disposition has no name parameter"
            return
        }
        let filename = parameters.first("filename")
        let text =
            filename == nil && part.bytes <= MultipartPartReport.maxText ? String(validating: part.prefix, as: UTF8.self) : nil
        self.parts.append(
            MultipartPartReport(
                name: name,
                filename: filename,
                contentType: header("content-type")?.value,
                bytes: part.bytes,
                sha256: part.hasher.finalize().lowercaseHex,
                text: text,
                rawDisposition: "\(disposition.name): \(disposition.value)"
            )
        )
    }
}
