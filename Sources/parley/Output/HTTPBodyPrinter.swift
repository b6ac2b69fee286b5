import Foundation
import Parley

/// Writes a response body on standard output as it arrives.
///
/// With `--pretty none` (the default when standard output is not a terminal) the bytes go out exactly as received,
/// chunk by chunk. Otherwise a JSON body (a media type naming `json`) is held until complete, up to
/// ``formatLimit``, and written indented and/or coloured; a body that is not JSON, does not parse, or is larger is
/// written as received. In those modes a final line break is added when the body does not end with one.
struct HTTPBodyPrinter {
    /// How the body is shown.
    let mode: HTTPPrettyMode

    /// The largest JSON body held for formatting; a larger one is written as received.
    static let formatLimit = 16 * 1024 * 1024

    /// Writes `body`, and returns its first bytes (at most ``ParleyError/excerptLimit``) for an error message.
    ///
    /// - Throws: ``ParleyError`` when the body cannot be read to its end; any other error when standard output
    ///   cannot be written.
    func output(_ body: ByteStream, contentType: String?) async throws -> Data {
        var excerpt = Data()
        var last: UInt8?
        let formatting = mode != .none && Self.isJSON(contentType)
        var held: [UInt8]? = formatting ? [] : nil
        var chunks = body.makeAsyncIterator()
        while let chunk = try await chunks.next() {
            if excerpt.count < ParleyError.excerptLimit {
                excerpt.append(contentsOf: chunk.prefix(ParleyError.excerptLimit - excerpt.count))
            }
            if held != nil {
                held?.append(contentsOf: chunk)
                guard let bytes = held, bytes.count > Self.formatLimit else { continue }
                try Self.write(bytes[...])
                last = bytes.last
                held = nil
                continue
            }
            try Self.write(chunk)
            last = chunk.last ?? last
        }
        if let held {
            let layout: JSONFormatter.Layout = mode.formats ? .indented : .original
            let output = (try? JSONFormatter(layout: layout, colors: mode.colors).format(held)) ?? held
            try Self.write(output[...])
            last = output.last ?? last
        }
        if mode != .none, let last, last != UInt8(ascii: "\n") {
            try Self.write(ArraySlice("\n".utf8))
        }
        return excerpt
    }

    /// Whether `contentType` is a JSON media type: `application/json`, `application/problem+json`, `text/json`…
    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let mediaType = contentType.prefix { $0 != ";" }.lowercased()
        return mediaType.contains("json")
    }

    /// Writes `bytes` on standard output.
    static func write(_ bytes: ArraySlice<UInt8>) throws {
        guard !bytes.isEmpty else { return }
        try FileHandle.standardOutput.write(contentsOf: bytes)
    }
}
