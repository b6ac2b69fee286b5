import NIOCore
import Parley
import ParleyDemoServer

/// A request as the fault server reads it: request line, header fields and a `Content-Length` body.
struct FaultRequestHead: Sendable {
    /// What a read of the bytes received so far found.
    enum Parse: Sendable {
        /// More bytes are needed (head or body not complete yet).
        case incomplete
        /// The bytes are not an HTTP/1.1 request the server understands.
        case malformed(String)
        /// A whole request.
        case complete(FaultRequestHead)
    }

    /// The most bytes a request head may have.
    static let headLimit = 64 * 1024

    /// `GET`, `POST`, …
    let method: String
    /// The path, without the query.
    let path: String
    /// The query items.
    let query: QueryItems
    /// The header fields as `(name, value)`, names as sent.
    let fields: [(name: String, value: String)]
    /// How many body bytes followed the head.
    let bodyLength: Int

    /// Reads `buffer` (every byte received on the connection so far).
    static func parse(_ buffer: ByteBuffer) -> Parse {
        let bytes = buffer.readableBytesView
        guard let end = Self.endOfHead(bytes) else {
            return bytes.count > Self.headLimit ? .malformed("request head longer than \(Self.headLimit) bytes") : .incomplete
        }
        let text = String(decoding: bytes[bytes.startIndex..<end], as: UTF8.self)
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count == 3, requestLine[2].hasPrefix("HTTP/1.") else {
            return .malformed("request line is not METHOD TARGET HTTP/1.x")
        }
        var fields: [(name: String, value: String)] = []
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { return .malformed("header line without a colon") }
            let value = line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
            fields.append((String(line[..<colon]), String(value)))
        }
        let length = fields.first { $0.name.lowercased() == "content-length" }.map { Int($0.value) ?? -1 } ?? 0
        guard length >= 0 else { return .malformed("Content-Length is not a number") }
        let received = bytes.distance(from: end, to: bytes.endIndex) - 4
        guard received >= length else { return .incomplete }
        // The target read as the demo server reads it: Parley's one request-target parser.
        let target = RequestTarget(String(requestLine[1]))
        let head = FaultRequestHead(
            method: String(requestLine[0]),
            path: String(target.path),
            query: QueryItems(rawQuery: target.queryText ?? ""),
            fields: fields,
            bodyLength: length
        )
        return .complete(head)
    }

    /// The index of the `\r\n\r\n` that ends the head, if it arrived.
    private static func endOfHead(_ bytes: ByteBufferView) -> ByteBufferView.Index? {
        let crlfcrlf: [UInt8] = [13, 10, 13, 10]
        var index = bytes.startIndex
        while let cr = bytes[index...].firstIndex(of: 13) {
            if bytes.distance(from: cr, to: bytes.endIndex) < 4 { return nil }
            if bytes[cr..<bytes.index(cr, offsetBy: 4)].elementsEqual(crlfcrlf) { return cr }
            index = bytes.index(after: cr)
        }
        return nil
    }
}
