#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The byte ranges of the elements of a top-level JSON array, found without decoding them (so that numbers and
/// strings reach their decoders exactly as the peer wrote them). `nil` when `data` is not an array; elements are
/// not validated here, their decoders do that.
enum JSONArrayElements {
    static func split(_ data: Data) -> [Data]? {
        let bytes = [UInt8](data)
        var index = 0
        func skipWhitespace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "[") else { return nil }
        index += 1
        var elements: [Data] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { return [] }
        while index < bytes.count {
            skipWhitespace()
            let start = index
            var depth = 0
            var inString = false
            var escaped = false
            scan: while index < bytes.count {
                let byte = bytes[index]
                if inString {
                    if escaped {
                        escaped = false
                    } else if byte == UInt8(ascii: "\\") {
                        escaped = true
                    } else if byte == UInt8(ascii: "\"") {
                        inString = false
                    }
                } else {
                    switch byte {
                    case UInt8(ascii: "\""): inString = true
                    case UInt8(ascii: "["), UInt8(ascii: "{"): depth += 1
                    case UInt8(ascii: "]"), UInt8(ascii: "}"):
                        if depth == 0 { break scan }
                        depth -= 1
                    case UInt8(ascii: ","):
                        if depth == 0 { break scan }
                    default: break
                    }
                }
                index += 1
            }
            guard index < bytes.count else { return nil }  // the array never ended
            var end = index
            while end > start, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[end - 1]) { end -= 1 }
            guard end > start else { return nil }
            elements.append(Data(bytes[start..<end]))
            if bytes[index] == UInt8(ascii: "]") { return elements }
            index += 1  // the comma
        }
        return nil
    }
}
