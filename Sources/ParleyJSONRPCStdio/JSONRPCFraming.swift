import Foundation

/// How messages are delimited on a byte stream.
public enum JSONRPCFraming: Sendable, Hashable {
    /// `Content-Length: N\r\n\r\n` then N bytes, as the Language Server Protocol frames messages.
    case contentLength
    /// One message per line, as the Model Context Protocol's stdio transport frames them.
    case newlineDelimited

    /// The bytes that carry `message` in this framing.
    func frame(_ message: Data) -> Data {
        switch self {
        case .contentLength:
            var framed = Data("Content-Length: \(message.count)\r\n\r\n".utf8)
            framed.append(message)
            return framed
        case .newlineDelimited:
            var framed = message
            framed.append(UInt8(ascii: "\n"))
            return framed
        }
    }
}

/// Cuts a byte stream into messages.
struct FrameParser {
    enum Failure: Error, CustomStringConvertible {
        case badHeader(String)
        case tooLarge(Int)

        var description: String {
            switch self {
            case .badHeader(let line): "a header block without a valid Content-Length (\(String(reflecting: line)))"
            case .tooLarge(let size): "a message of \(size) bytes, larger than the limit"
            }
        }
    }

    let framing: JSONRPCFraming
    let maxMessageSize: Int
    private var buffer = Data()
    private var expected: Int?

    init(framing: JSONRPCFraming, maxMessageSize: Int) {
        self.framing = framing
        self.maxMessageSize = maxMessageSize
    }

    /// Adds bytes and returns every message they complete, then the failure that stopped the stream, if any:
    /// the messages before a broken frame are still delivered.
    mutating func feed(_ bytes: Data) -> (messages: [Data], failure: Failure?) {
        buffer.append(bytes)
        var messages: [Data] = []
        do throws(Failure) {
            while let message = try next() { messages.append(message) }
        } catch {
            return (messages, error)
        }
        if buffer.count > maxMessageSize + 1024 { return (messages, .tooLarge(buffer.count)) }
        return (messages, nil)
    }

    private mutating func next() throws(Failure) -> Data? {
        switch framing {
        case .newlineDelimited:
            guard let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
            var line = buffer[buffer.startIndex..<newline]
            buffer = Data(buffer[(newline + 1)...])
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return try next() }  // blank lines between messages
            return Data(line)
        case .contentLength:
            if expected == nil {
                let separator = Data("\r\n\r\n".utf8)
                guard let end = buffer.range(of: separator) else { return nil }
                let header = String(decoding: buffer[buffer.startIndex..<end.lowerBound], as: UTF8.self)
                buffer = Data(buffer[end.upperBound...])
                var length: Int?
                for line in header.split(separator: "\r\n") {
                    let parts = line.split(separator: ":", maxSplits: 1)
                    if parts.count == 2, parts[0].lowercased() == "content-length" {
                        length = Int(String(parts[1].filter { $0 != " " && $0 != "\t" }))
                    }
                }
                guard let length, length >= 0 else { throw Failure.badHeader(header) }
                guard length <= maxMessageSize else { throw Failure.tooLarge(length) }
                expected = length
            }
            guard let length = expected, buffer.count >= length else { return nil }
            let message = Data(buffer.prefix(length))
            buffer = Data(buffer.dropFirst(length))
            expected = nil
            return message
        }
    }
}
