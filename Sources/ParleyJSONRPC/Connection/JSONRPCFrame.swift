import Parley

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// What routing needs of one inbound message, read from its bytes without decoding it, so that each message is
/// decoded once: an answer by its caller's typed decoders, a request or notification by whoever handles it. The
/// JSON-RPC targets' one JSON byte scanner: a batch's elements are split with it too.
///
/// The scan walks the top level only (iteratively: a hostile nesting depth costs time, never stack) and trusts
/// nothing: a malformed answer still reaches its caller, whose decoding reports what is wrong with it.
package enum JSONRPCFrame: Equatable, Sendable {
    /// Answers: an object without `method`, or a batch whose first element has none. The ids they carry
    /// (integers and strings), in order.
    case answers([JSONRPCID])
    /// A request or notification, or a batch starting with one: decoded by the one who handles it.
    case messages
    /// Neither a JSON object nor an array.
    case malformed

    /// Scans `data`.
    package static func scan(_ data: Data) -> JSONRPCFrame {
        data.withUnsafeBytes { raw in
            var scanner = Scanner(bytes: raw.bindMemory(to: UInt8.self))
            scanner.skipWhitespace()
            guard let first = scanner.peek() else { return .malformed }
            switch first {
            case UInt8(ascii: "{"):
                guard let object = scanner.object() else { return .malformed }
                return object.hasMethod ? .messages : .answers(object.id.map { [$0] } ?? [])
            case UInt8(ascii: "["):
                scanner.index += 1
                var ids: [JSONRPCID] = []
                var isFirst = true
                while true {
                    scanner.skipWhitespace()
                    guard let next = scanner.peek() else { return .malformed }
                    // An empty batch is the router's to answer (-32600), as the specification says.
                    if next == UInt8(ascii: "]") { return isFirst ? .messages : .answers(ids) }
                    if !isFirst {
                        guard next == UInt8(ascii: ",") else { return .malformed }
                        scanner.index += 1
                        scanner.skipWhitespace()
                    }
                    if scanner.peek() == UInt8(ascii: "{") {
                        guard let object = scanner.object() else { return .malformed }
                        if isFirst, object.hasMethod { return .messages }
                        if let id = object.id { ids.append(id) }
                    } else {
                        // An element that is not an object is an answer nobody can match.
                        guard scanner.skipValue() else { return .malformed }
                    }
                    isFirst = false
                }
            case UInt8(ascii: "\""), UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "t"),
                UInt8(ascii: "f"), UInt8(ascii: "n"):
                // A JSON value that is not an object: the router answers it (-32600, or -32700 when it is not JSON).
                return .messages
            default:
                return .malformed
            }
        }
    }

    /// The id of `data` when it is one request (an object with `method` and an integer or string `id`), read from
    /// its bytes; `nil` for anything else.
    package static func requestID(_ data: Data) -> JSONRPCID? {
        data.withUnsafeBytes { raw in
            var scanner = Scanner(bytes: raw.bindMemory(to: UInt8.self))
            scanner.skipWhitespace()
            guard scanner.peek() == UInt8(ascii: "{"), let object = scanner.object(), object.hasMethod else { return nil }
            return object.id
        }
    }

    /// Whether `data` is a batch: its first byte after whitespace opens an array.
    package static func isBatch(_ data: Data) -> Bool {
        data.withUnsafeBytes { raw in
            var scanner = Scanner(bytes: raw.bindMemory(to: UInt8.self))
            scanner.skipWhitespace()
            return scanner.peek() == UInt8(ascii: "[")
        }
    }

    /// The bytes of each element of the top-level array `data`, found without decoding them (so that numbers and
    /// strings reach their decoders exactly as the peer wrote them); `nil` when `data` is not an array, or one that
    /// does not end. Elements are not validated here: their decoders do that.
    package static func elements(_ data: Data) -> [Data]? {
        data.withUnsafeBytes { raw -> [Data]? in
            let bytes = raw.bindMemory(to: UInt8.self)
            var scanner = Scanner(bytes: bytes)
            scanner.skipWhitespace()
            guard scanner.peek() == UInt8(ascii: "[") else { return nil }
            scanner.index += 1
            var elements: [Data] = []
            while true {
                scanner.skipWhitespace()
                if elements.isEmpty, scanner.peek() == UInt8(ascii: "]") { return [] }
                let start = scanner.index
                guard scanner.skipValue(), scanner.index > start, scanner.index <= bytes.count else { return nil }
                elements.append(Data(UnsafeBufferPointer(rebasing: bytes[start..<scanner.index])))
                scanner.skipWhitespace()
                switch scanner.peek() {
                case UInt8(ascii: "]")?: return elements
                case UInt8(ascii: ",")?: scanner.index += 1
                default: return nil
                }
            }
        }
    }

    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipWhitespace() { index = JSONScanner.skipWhitespace(bytes, from: index) }

        /// The members that matter of the object at `index`; `nil` when it does not end.
        mutating func object() -> (hasMethod: Bool, id: JSONRPCID?)? {
            index += 1  // {
            var hasMethod = false
            var id: JSONRPCID?
            while true {
                skipWhitespace()
                guard let next = peek() else { return nil }
                if next == UInt8(ascii: "}") {
                    index += 1
                    return (hasMethod, id)
                }
                if next == UInt8(ascii: ",") {
                    index += 1
                    skipWhitespace()
                }
                guard peek() == UInt8(ascii: "\""), let key = string() else { return nil }
                skipWhitespace()
                guard peek() == UInt8(ascii: ":") else { return nil }
                index += 1
                skipWhitespace()
                let valueStart = index
                guard skipValue() else { return nil }
                switch key {
                case .method: hasMethod = true
                case .id: id = Self.id(UnsafeBufferPointer(rebasing: bytes[valueStart..<index]))
                case .other: break
                }
            }
        }

        enum Key { case method, id, other }

        /// Skips the key string at `index` (its opening quote); says whether it is `method` or `id`.
        mutating func string() -> Key? {
            let start = index
            guard skipString() else { return nil }
            let content = bytes[(start + 1)..<(index - 1)]
            guard !content.contains(UInt8(ascii: "\\")) else {
                // Spelled with escapes (`"\u0069d"`): the decoder reads it.
                let raw = Data(UnsafeBufferPointer(rebasing: bytes[start..<index]))
                switch try? JSONDecoder().decode(String.self, from: raw) {
                case "method"?: return .method
                case "id"?: return .id
                case nil: return nil
                default: return .other
                }
            }
            if content.elementsEqual("method".utf8) { return .method }
            if content.elementsEqual("id".utf8) { return .id }
            return .other
        }

        /// Skips the string at `index` (Parley's one JSON byte scanner, `JSONScanner`); `false` when it does not end.
        mutating func skipString() -> Bool {
            guard let end = JSONScanner.stringEnd(bytes, from: index) else { return false }
            index = end
            return true
        }

        /// Skips one value (a string, a number, a literal, or a whole object or array); `false` when it does not end.
        mutating func skipValue() -> Bool {
            guard let end = JSONScanner.valueEnd(bytes, from: index) else { return false }
            index = end
            return true
        }

        /// An id as the peer wrote it: an integer or a string; anything else matches no call.
        static func id(_ raw: UnsafeBufferPointer<UInt8>) -> JSONRPCID? {
            guard let first = raw.first else { return nil }
            if first == UInt8(ascii: "\"") {
                let content = UnsafeBufferPointer(rebasing: raw.dropFirst().dropLast())
                guard !content.contains(UInt8(ascii: "\\")) else {
                    // Escapes: the decoder reads them.
                    return (try? JSONDecoder().decode(String.self, from: Data(raw))).map { .string($0) }
                }
                return .string(String(decoding: content, as: UTF8.self))
            }
            let text = String(decoding: raw, as: UTF8.self)
            guard JSONScanner.isNumber(raw) else { return nil }  // +1, 01, 0x1p0: not JSON numbers, so no call's id
            if let number = Int(text) { return .number(number) }
            // 1.0 or 1e2: an integer written another way, as a decoder reads it.
            if let number = Double(text), number.rounded() == number, let integer = Int(exactly: number) {
                return .number(integer)
            }
            return nil
        }
    }
}
