/// Measures how deeply a JSON text nests, to tell "nested too deeply" from "not JSON" when a decoder only says
/// the data is not valid JSON (Foundation's `JSONDecoder` does, past 512 levels).
package enum JSONNesting {
    /// Whether arrays and objects in `bytes` nest deeper than `limit` (brackets inside strings do not count).
    /// Stops at the first level past the limit; reads the bytes once, without recursion.
    package static func exceeds(_ limit: Int, in bytes: some Sequence<UInt8>) -> Bool {
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
}
