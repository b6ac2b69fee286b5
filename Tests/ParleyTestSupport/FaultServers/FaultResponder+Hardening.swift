import NIOCore
import ParleyDemoServer

/// The fault server's routes for hostile framing and hostile sizes (URLSession hardening): exact bytes, each
/// followed by the server closing (or, for the endless ones, by the client closing).
///
/// - `/interim-100`: `HTTP/1.1 100 Interim` and an empty line, then a `200` with `ok`.
/// - `/early-hints?count=N` (default 1000): `N` × `103 Early Hints` with a `Link` field, then a `200` with `ok`.
/// - `/content-length-twice`: `Content-Length: 5` and `Content-Length: 10`, then 10 bytes.
/// - `/content-length-list`: `Content-Length: 5, 10`, then 10 bytes.
/// - `/content-length-huge`: `Content-Length: 99999999999999999999999`, then 10 bytes and a close.
/// - `/many-trailers?count=N` (default 100000): a chunked `ok`, then `N` trailer fields after the last chunk.
/// - `/redirect-huge-body?size=N` (default 10 GiB): a `302` to `/ok` with `Content-Length: N` and `N` bytes,
///   written as fast as the client reads.
/// - `/endless-401`: a `401` with `WWW-Authenticate: Bearer` and a chunked body that never ends (as fast as the
///   client reads).
/// - `/gzip-bomb-chunked?inflated=N` (default 10 GiB): a chunked gzip body of zeros (no `Content-Length`) that
///   inflates to `N` bytes, about 1000 to 1.
enum HardeningScript: Sendable, Equatable {
    case interim100
    case earlyHints(count: Int)
    case contentLengthTwice
    case contentLengthList
    case contentLengthHuge
    case manyTrailers(count: Int)
    case redirectHugeBody(size: Int)
    case endless401
    case gzipBombChunked(inflated: Int)

    /// The script for `head`, or `nil` when its path is not one of these routes.
    init?(_ head: FaultRequestHead) {
        func integer(_ name: String, default value: Int) -> Int {
            guard let text = head.query.first(name), let number = Int(text), number >= 0 else { return value }
            return number
        }
        switch head.path {
        case "/interim-100": self = .interim100
        case "/early-hints": self = .earlyHints(count: min(integer("count", default: 1000), 100_000))
        case "/content-length-twice": self = .contentLengthTwice
        case "/content-length-list": self = .contentLengthList
        case "/content-length-huge": self = .contentLengthHuge
        case "/many-trailers": self = .manyTrailers(count: min(integer("count", default: 100_000), 1_000_000))
        case "/redirect-huge-body": self = .redirectHugeBody(size: integer("size", default: 10 << 30))
        case "/endless-401": self = .endless401
        case "/gzip-bomb-chunked": self = .gzipBombChunked(inflated: integer("inflated", default: 10 << 30))
        default: return nil
        }
    }
}

extension FaultResponder {
    /// Carries out `script` on `channel`.
    static func respond(_ script: HardeningScript, on channel: any Channel) {
        let ok = Array("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok".utf8)
        let ten = Array("helloworld".utf8)
        switch script {
        case .interim100:
            Self.send(Array("HTTP/1.1 100 Interim\r\n\r\n".utf8) + ok, on: channel)
        case .earlyHints(let count):
            let hint = Array("HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n".utf8)
            var bytes: [UInt8] = []
            bytes.reserveCapacity(hint.count * count + ok.count)
            for _ in 0..<count { bytes += hint }
            Self.send(bytes + ok, on: channel)
        case .contentLengthTwice:
            let head =
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\nContent-Length: 10\r\nConnection: close\r\n\r\n"
            Self.send(Array(head.utf8) + ten, on: channel)
        case .contentLengthList:
            let head = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5, 10\r\nConnection: close\r\n\r\n"
            Self.send(Array(head.utf8) + ten, on: channel)
        case .contentLengthHuge:
            let head =
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 99999999999999999999999\r\nConnection: close\r\n\r\n"
            Self.send(Array(head.utf8) + ten, on: channel)
        case .manyTrailers(let count):
            var bytes = Self.head("200 OK", ["Content-Type": "text/plain", "Transfer-Encoding": "chunked"])
            bytes += Self.chunk(Array("ok".utf8)) + Array("0\r\n".utf8)
            for index in 0..<count { bytes += Array("X-Trailer-\(index): \(index)\r\n".utf8) }
            bytes += [13, 10]
            Self.send(bytes, on: channel)
        case .redirectHugeBody(let size):
            Self.write(Self.head("302 Found", ["Location": "/ok", "Content-Length": "\(size)"]), on: channel)
            Self.pumpRaw(channel, left: size, bytes: Self.zeros)
        case .endless401:
            Self.write(
                Self.head("401 Unauthorized", ["WWW-Authenticate": "Bearer", "Transfer-Encoding": "chunked"]),
                on: channel
            )
            Self.pump(channel)
        case .gzipBombChunked(let inflated):
            guard let bomb = GzipBomb(inflated: inflated) else { return Self.reset(channel) }
            Self.write(
                Self.head(
                    "200 OK",
                    ["Content-Type": "application/octet-stream", "Content-Encoding": "gzip", "Transfer-Encoding": "chunked"]
                ),
                on: channel
            )
            Self.write(Self.chunk(bomb.head), on: channel)
            Self.pumpPieces(channel, left: bomb.repeats, piece: bomb.piece) {
                Self.send(Self.chunk(bomb.tail) + Array("0\r\n\r\n".utf8), on: channel)
            }
        }
    }

    private static let zeros = [UInt8](repeating: 0, count: 64 * 1024)

    /// Writes `left` bytes taken from `bytes`, the next write once the last one left, then closes.
    private static func pumpRaw(_ channel: any Channel, left: Int, bytes: [UInt8]) {
        guard left > 0 else { return channel.close(promise: nil) }
        let count = min(left, bytes.count)
        channel.writeAndFlush(ByteBuffer(bytes: bytes.prefix(count))).whenSuccess {
            channel.eventLoop.execute { Self.pumpRaw(channel, left: left - count, bytes: bytes) }
        }
    }

    /// Writes `left` copies of `piece` as chunks of up to 64 pieces, the next once the last one left, then runs `end`.
    private static func pumpPieces(_ channel: any Channel, left: Int, piece: [UInt8], end: @escaping @Sendable () -> Void) {
        guard left > 0, !piece.isEmpty else { return end() }
        let count = min(left, 64)
        let batch = Self.chunk(Array([[UInt8]](repeating: piece, count: count).joined()))
        channel.writeAndFlush(ByteBuffer(bytes: batch)).whenSuccess {
            channel.eventLoop.execute { Self.pumpPieces(channel, left: left - count, piece: piece, end: end) }
        }
    }
}
