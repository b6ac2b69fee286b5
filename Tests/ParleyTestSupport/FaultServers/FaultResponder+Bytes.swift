import NIOCore

extension FaultResponder {
    /// A status line and header fields (plus `Connection: close`), ending with the empty line.
    static func head(_ status: String, _ fields: [String: String]) -> [UInt8] {
        var text = "HTTP/1.1 \(status)\r\n"
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) { text += "\(name): \(value)\r\n" }
        text += "Connection: close\r\n\r\n"
        return Array(text.utf8)
    }

    /// A whole response with `Content-Length`.
    static func response(_ status: String, _ fields: [String: String], body: [UInt8]) -> [UInt8] {
        self.head(status, fields.merging(["Content-Length": "\(body.count)"]) { $1 }) + body
    }

    /// `bytes` as one chunk of a chunked body.
    static func chunk(_ bytes: [UInt8]) -> [UInt8] {
        Array("\(String(bytes.count, radix: 16))\r\n".utf8) + bytes + [13, 10]
    }

    /// `count` bytes of `a`…`z` repeated.
    static func pattern(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(ascii: "a") + UInt8($0 % 26) }
    }

    /// Writes `bytes` and keeps the connection open.
    static func write(_ bytes: [UInt8], on channel: any Channel) {
        channel.writeAndFlush(ByteBuffer(bytes: bytes), promise: nil)
    }

    /// Writes `bytes`, then closes the connection (a FIN once they have left).
    static func send(_ bytes: [UInt8], on channel: any Channel) {
        channel.writeAndFlush(ByteBuffer(bytes: bytes)).whenComplete { _ in channel.close(promise: nil) }
    }

    /// 64 KiB of chunks at a time, the next batch once the last one has been written to the socket: the
    /// client's reading paces the server, and a write failing (the client closed) ends it.
    static func pump(_ channel: any Channel) {
        let batch = ByteBuffer(bytes: Self.pumpChunk)
        for _ in 1..<16 { channel.write(batch, promise: nil) }
        channel.writeAndFlush(batch).whenSuccess {
            // A hop through the event loop, so that writes completing at once do not recurse.
            channel.eventLoop.execute { Self.pump(channel) }
        }
    }

    private static let pumpChunk = Self.chunk(Self.pattern(4096))
}
