/// Parley's one byte scanner of JSON text: where a string, a number or a whole value ends, and how deeply a text
/// nests, without decoding it. For the code that looks into JSON without building it: JSON-RPC's triage of incoming
/// frames, the nesting check behind decoding errors, the redaction of recorded fixtures, the command line's
/// formatter. New code that needs to look into JSON bytes uses this, or extends it.
///
/// Two strengths: the boundary functions (``stringEnd(_:from:)``, ``valueEnd(_:from:)``) only find where things end
/// (a backslash escapes the next byte, nothing else is checked), for text a decoder reads afterwards or that is kept
/// as it is; the checking ones (``checkedStringEnd(_:from:)``, ``numberEnd(_:from:)``) follow RFC 8259 and say what
/// is wrong and where.
package enum JSONScanner {
    /// What is wrong with a JSON text, and at which byte.
    package struct Problem: Error, Sendable, Equatable {
        package let offset: Int
        package let reason: String
    }

    /// Whether `byte` is JSON whitespace: space, tab, line feed, carriage return.
    package static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// The index of the first byte at or after `start` that is not whitespace (or the end).
    package static func skipWhitespace(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start
        while index < bytes.count, isWhitespace(bytes[index]) { index += 1 }
        return index
    }

    /// The index after the closing quote of the string whose opening quote is at `start`; `nil` when it does not end.
    package static func stringEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var index = start + 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return index + 1
            default: index += 1
            }
        }
        return nil
    }

    /// The index after the value at `start`: a string, a whole object or array (brackets inside strings do not
    /// count), or else a number or literal up to the next delimiter or whitespace; `nil` when a string or a
    /// container does not end.
    package static func valueEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard start < bytes.count else { return nil }
        let first = bytes[start]
        if first == UInt8(ascii: "\"") { return stringEnd(bytes, from: start) }
        guard first == UInt8(ascii: "{") || first == UInt8(ascii: "[") else {
            var index = start
            while index < bytes.count, !isWhitespace(bytes[index]), !isDelimiter(bytes[index]) { index += 1 }
            return index
        }
        var depth = 0
        var index = start
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                guard let end = stringEnd(bytes, from: index) else { return nil }
                index = end
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth == 0 { return index + 1 }
            default:
                break
            }
            index += 1
        }
        return nil
    }

    /// The index after the closing quote of the string whose opening quote is at `start`, checked: escapes are
    /// JSON's, and control characters are escaped.
    package static func checkedStringEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) throws(Problem) -> Int {
        var index = start + 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                return index + 1
            case UInt8(ascii: "\\"):
                guard index + 1 < bytes.count else { throw Problem(offset: start, reason: "a string without its closing quote") }
                let escaped = bytes[index + 1]
                if escaped == UInt8(ascii: "u") {
                    let digits = bytes[min(index + 2, bytes.count)..<min(index + 6, bytes.count)]
                    guard digits.count == 4, digits.allSatisfy(isHexDigit) else {
                        throw Problem(offset: index, reason: "a \\u escape needs four hexadecimal digits")
                    }
                    index += 6
                } else {
                    guard "\"\\/bfnrt".utf8.contains(escaped) else {
                        throw Problem(offset: index, reason: "invalid escape in a string")
                    }
                    index += 2
                }
            case 0..<0x20:
                throw Problem(offset: index, reason: "a control character in a string (escape it)")
            default:
                index += 1
            }
        }
        throw Problem(offset: start, reason: "a string without its closing quote")
    }

    /// The index after the number at `start`, checked against JSON's grammar:
    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    package static func numberEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) throws(Problem) -> Int {
        var index = start
        func digits() -> Int {
            let first = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index - first
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        let integerStart = index
        let integerDigits = digits()
        guard integerDigits > 0 else { throw Problem(offset: start, reason: "a number without digits") }
        if integerDigits > 1, bytes[integerStart] == UInt8(ascii: "0") {
            throw Problem(offset: start, reason: "a number with a leading zero")
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw Problem(offset: index, reason: "a number without digits after '.'") }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw Problem(offset: index, reason: "a number without exponent digits") }
        }
        return index
    }

    /// Whether `bytes` is exactly one JSON number.
    package static func isNumber(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        (try? numberEnd(bytes, from: 0)) == bytes.count
    }

    /// Whether arrays and objects in `bytes` nest deeper than `limit` (brackets inside strings do not count), to tell
    /// "nested too deeply" from "not JSON" when a decoder only says the data is not valid JSON (Foundation's
    /// `JSONDecoder` does, past 512 levels). Stops at the first level past the limit; reads the bytes once, without
    /// recursion.
    package static func exceedsNesting(_ limit: Int, in bytes: some Sequence<UInt8>) -> Bool {
        var depth = 0
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > limit { return true }
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                depth -= 1
            default:
                break
            }
        }
        return false
    }

    /// Whether `byte` is an ASCII hexadecimal digit.
    package static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20)
    }

    /// Whether `byte` ends a number or literal: `,`, `}` or `]`.
    private static func isDelimiter(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]")
    }
}
