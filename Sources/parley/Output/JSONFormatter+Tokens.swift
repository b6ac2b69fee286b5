import Parley

// The formatter's tokens, found by Parley's one JSON byte scanner (`JSONScanner`), its problems as `SyntaxError`s.
extension JSONFormatter {
    /// Whether `byte` is JSON whitespace: space, tab, line feed, carriage return.
    static func isWhitespace(_ byte: UInt8) -> Bool { JSONScanner.isWhitespace(byte) }

    /// The index after the closing quote of the string starting at `start`, checked.
    static func stringEnd(_ input: [UInt8], from start: Int) throws(SyntaxError) -> Int {
        try scanning(input) { bytes throws(JSONScanner.Problem) in try JSONScanner.checkedStringEnd(bytes, from: start) }
    }

    /// The index after the number starting at `start`, checked.
    static func numberEnd(_ input: [UInt8], from start: Int) throws(SyntaxError) -> Int {
        try scanning(input) { bytes throws(JSONScanner.Problem) in try JSONScanner.numberEnd(bytes, from: start) }
    }

    /// `scan` over `input`'s bytes, a problem it finds as a ``SyntaxError``.
    private static func scanning(
        _ input: [UInt8],
        _ scan: (UnsafeBufferPointer<UInt8>) throws(JSONScanner.Problem) -> Int
    ) throws(SyntaxError) -> Int {
        let result = input.withUnsafeBufferPointer { bytes in Result { () throws(JSONScanner.Problem) in try scan(bytes) } }
        switch result {
        case .success(let end): return end
        case .failure(let problem): throw SyntaxError(offset: problem.offset, reason: problem.reason)
        }
    }
}
