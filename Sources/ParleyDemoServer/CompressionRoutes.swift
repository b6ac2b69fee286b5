import HTTPTypes
import Hummingbird
import NIOCore
import Parley

/// Compressed responses, for the client's response decompression: well-formed, bombs, truncated and corrupt.
///
/// - `GET /gzip` and `GET /deflate` (`raw=true` for raw deflate instead of zlib-wrapped): a body of `size` bytes
///   (default 1000) of ``text(count:)``, or with `type=json` the object `{"text":"…"}` of `size` bytes (at least 11),
///   compressed, with its `Content-Length`; written in pieces of `chunk` bytes if given; `encoding=` overrides the
///   `Content-Encoding` value (`x-gzip`, `GZIP`, `gzip, identity`, …).
/// - `GET /gzip/bomb?inflated=N`: a gzip body of zeros that inflates to `N` bytes (default 10 GiB) from about 1/1000
///   of that on the wire, never inflated in the server (see ``GzipBomb``); `members=true` sends it as concatenated
///   gzip members of 1 MiB each instead of one.
/// - `GET /gzip/truncated?size=N`: the gzip body of `/gzip` cut in half, with a Content-Length of the half.
/// - `GET /gzip/corrupt?size=N`: a gzip body whose first deflate block has an invalid type.
/// - `GET /gzip/trailing?size=N`: a whole gzip body followed by bytes that are not gzip.
/// - `GET /gzip/empty`: `Content-Encoding: gzip` and no body bytes.
enum CompressionRoutes {
    /// The first `count` bytes of numbered lines `"0 The quick brown fox jumps over the lazy dog.\n"`, `"1 The…"`, …
    /// (compressing about 20 to 1, like ordinary text).
    static func text(count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 64)
        var line = 0
        while bytes.count < count {
            bytes.append(contentsOf: "\(line) The quick brown fox jumps over the lazy dog.\n".utf8)
            line += 1
        }
        return Array(bytes.prefix(count))
    }

    /// Registers the routes on `router`.
    static func register(on router: Router<DemoRequestContext>, events: EventBoard) {
        router.get("gzip") { request, _ in
            self.compressed(request, format: .gzip, coding: "gzip") { $0 }
        }
        router.get("deflate") { request, _ in
            let raw = RequestTarget(request).queryItems.first("raw") == "true"
            return self.compressed(request, format: raw ? .raw : .zlib, coding: "deflate") { $0 }
        }
        router.get("gzip/truncated") { request, _ in
            self.compressed(request, format: .gzip, coding: "gzip") { Array($0.prefix($0.count / 2)) }
        }
        router.get("gzip/corrupt") { request, _ in
            // Byte 10 starts the first deflate block (after the 10-byte gzip header); type 3 does not exist.
            self.compressed(request, format: .gzip, coding: "gzip") { bytes in
                var bytes = bytes
                if bytes.count > 10 { bytes[10] |= 0b110 }
                return bytes
            }
        }
        router.get("gzip/trailing") { request, _ in
            self.compressed(request, format: .gzip, coding: "gzip") { $0 + Array("not gzip".utf8) }
        }
        router.get("gzip/empty") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: DemoResponses.textContentType, .contentEncoding: "gzip"],
                body: ResponseBody()
            )
        }
        router.get("gzip/bomb") { request, context in
            let query = RequestTarget(request).queryItems
            let inflated: Int
            do throws(QueryError) {
                inflated = try query.int("inflated", in: 0...Int.max) ?? 10 << 30
            } catch {
                return DemoResponses.error(error.message, status: .badRequest)
            }
            let separate = query.first("members") == "true"
            let rest = inflated % GzipBomb.pieceSize
            guard let bomb = GzipBomb(inflated: separate ? GzipBomb.pieceSize : inflated),
                let last = separate && rest > 0 ? GzipBomb(inflated: rest) : bomb
            else {
                return DemoResponses.error("zlib failed to compress the body", status: .internalServerError)
            }
            // Separate members: `inflated / 1 MiB` members of 1 MiB (each a whole gzip body), then the rest.
            let head = separate ? [] : bomb.head
            let piece = separate ? bomb.bytes : bomb.piece
            let repeats = separate ? inflated / GzipBomb.pieceSize : bomb.repeats
            let tail = separate ? (rest > 0 ? last.bytes : []) : bomb.tail
            // 64 pieces to a write (about 64 KiB).
            let batch = ByteBuffer(bytes: Array([[UInt8]](repeating: piece, count: 64).joined()))
            return Response(
                status: .ok,
                headers: [.contentType: "application/octet-stream", .contentEncoding: "gzip"],
                body: ResponseBody(contentLength: head.count + piece.count * repeats + tail.count) { writer in
                    try await events.closingOnStop(context.channel) {
                        try await writer.write(ByteBuffer(bytes: head))
                        var left = repeats
                        while left > 0 {
                            if events.hasFired(.stopping) { throw DemoServerError.serverStopping }
                            let count = min(left, 64)
                            try await writer.write(batch.getSlice(at: 0, length: count * piece.count) ?? batch)
                            left -= count
                        }
                        try await writer.write(ByteBuffer(bytes: tail))
                        try await writer.finish(nil)
                    }
                }
            )
        }
    }

    /// The body `size` and `type` ask for, compressed in `format`, changed by `transform`, as a response with
    /// `Content-Encoding: coding` (or the `encoding` asked for).
    private static func compressed(
        _ request: Request,
        format: Deflater.Format,
        coding: String,
        transform: ([UInt8]) -> [UInt8]
    ) -> Response {
        let query = RequestTarget(request).queryItems
        let json = query.first("type") == "json"
        let size: Int
        let chunk: Int?
        do throws(QueryError) {
            size = try query.int("size", in: (json ? 11 : 0)...(256 << 20)) ?? 1000
            chunk = try query.int("chunk", in: 1...Int.max)
        } catch {
            return DemoResponses.error(error.message, status: .badRequest)
        }
        var plain = text(count: size)
        if json {
            // JSON strings cannot hold a line feed: the lines are separated by spaces there.
            let jsonText = text(count: size - 11).map { $0 == 0x0A ? 0x20 : $0 }
            plain = Array(#"{"text":""#.utf8) + jsonText + Array(#""}"#.utf8)
        }
        guard let compressed = Deflater.compress(plain, format: format).map(transform) else {
            return DemoResponses.error("zlib failed to compress the body", status: .internalServerError)
        }
        let headers: HTTPFields = [
            .contentType: json ? DemoResponses.jsonContentType : DemoResponses.textContentType,
            .contentEncoding: query.first("encoding") ?? coding,
        ]
        let pieces = stride(from: 0, to: compressed.count, by: chunk ?? max(compressed.count, 1)).map {
            ByteBuffer(bytes: compressed[$0..<min($0 + (chunk ?? compressed.count), compressed.count)])
        }
        return Response(
            status: .ok,
            headers: headers,
            body: ResponseBody(contentLength: compressed.count) { writer in
                for piece in pieces { try await writer.write(piece) }
                try await writer.finish(nil)
            }
        )
    }
}
