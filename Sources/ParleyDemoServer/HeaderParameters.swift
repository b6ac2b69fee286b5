import Parley

/// A header value of the form `value; name=token; name="quoted string"` (RFC 9110 §5.6.6), as in
/// `Content-Type` and `Content-Disposition`.
///
/// Quoted strings are unquoted and their backslash escapes (quoted-pairs) resolved; nothing else is
/// decoded, so the WHATWG escapes that browsers use in form-data names (`%22`, `%0D`, `%0A`) are kept
/// as they are.
struct HeaderParameters: Sendable {
    /// The part before the first `;`, trimmed (e.g. `form-data` or `multipart/form-data`).
    let value: String
    /// The parameters in order, names lowercased.
    let parameters: [(name: String, value: String)]

    /// Parses `field`; `nil` if a quoted string is not terminated.
    init?(_ field: String) {
        let bytes = Array(field.utf8)
        var index = 0
        var parameters: [(name: String, value: String)] = []
        let main = Self.take(bytes, from: &index) { $0 == UInt8(ascii: ";") }
        while index < bytes.count {
            index += 1  // the `;`
            let name = Self.take(bytes, from: &index) { $0 == UInt8(ascii: "=") || $0 == UInt8(ascii: ";") }
            guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else {
                if !name.isEmpty { parameters.append((name.lowercased(), "")) }
                continue
            }
            index += 1  // the `=`
            while index < bytes.count, bytes[index].isHTTPWhitespace { index += 1 }
            let value: String
            if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                guard let quoted = Self.quotedString(bytes, from: &index) else { return nil }
                value = quoted
                // Skip anything up to the next `;` (normally only blanks).
                _ = Self.take(bytes, from: &index) { $0 == UInt8(ascii: ";") }
            } else {
                value = Self.take(bytes, from: &index) { $0 == UInt8(ascii: ";") }
            }
            parameters.append((name.lowercased(), value))
        }
        self.value = main
        self.parameters = parameters
    }

    /// The first value of the parameter `name` (case-insensitive).
    func first(_ name: String) -> String? {
        let name = name.lowercased()
        return self.parameters.first { $0.name == name }?.value
    }

    /// Reads up to (not including) the first byte matching `isEnd`, trimmed of blanks.
    private static func take(_ bytes: [UInt8], from index: inout Int, until isEnd: (UInt8) -> Bool) -> String {
        let start = index
        while index < bytes.count, !isEnd(bytes[index]) { index += 1 }
        var slice = bytes[start..<index]
        while let first = slice.first, first.isHTTPWhitespace { slice = slice.dropFirst() }
        while let last = slice.last, last.isHTTPWhitespace { slice = slice.dropLast() }
        return String(decoding: slice, as: UTF8.self)
    }

    /// Reads a quoted string starting at the opening quote; `nil` if it is not terminated.
    private static func quotedString(_ bytes: [UInt8], from index: inout Int) -> String? {
        var result: [UInt8] = []
        index += 1  // the opening quote
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: result, as: UTF8.self)
            case UInt8(ascii: "\\") where index < bytes.count:
                result.append(bytes[index])
                index += 1
            default:
                result.append(byte)
            }
        }
        return nil
    }
}
