extension JSONFormatter {
    /// Whether `byte` is an ASCII hexadecimal digit.
    static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20)
    }

    /// Whether `byte` is JSON whitespace: space, tab, line feed, carriage return.
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// The index after the closing quote of the string starting at `start`.
    static func stringEnd(_ input: [UInt8], from start: Int) throws(SyntaxError) -> Int {
        var index = start + 1
        while index < input.count {
            switch input[index] {
            case UInt8(ascii: "\""):
                return index + 1
            case UInt8(ascii: "\\"):
                guard index + 1 < input.count else {
                    throw SyntaxError(offset: start, reason: "a string without its closing quote")
                }
                let escaped = input[index + 1]
                if escaped == UInt8(ascii: "u") {
                    let digits = input[min(index + 2, input.count)..<min(index + 6, input.count)]
                    guard digits.count == 4, digits.allSatisfy(Self.isHexDigit) else {
                        throw SyntaxError(offset: index, reason: "a \\u escape needs four hexadecimal digits")
                    }
                    index += 6
                } else {
                    guard "\"\\/bfnrt".utf8.contains(escaped) else {
                        throw SyntaxError(offset: index, reason: "invalid escape in a string")
                    }
                    index += 2
                }
            case 0..<0x20:
                throw SyntaxError(offset: index, reason: "a control character in a string (escape it)")
            default:
                index += 1
            }
        }
        throw SyntaxError(offset: start, reason: "a string without its closing quote")
    }

    /// The index after the number starting at `start` (`-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`).
    static func numberEnd(_ input: [UInt8], from start: Int) throws(SyntaxError) -> Int {
        var index = start
        func digits() -> Int {
            let first = index
            while index < input.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(input[index]) { index += 1 }
            return index - first
        }
        if input[index] == UInt8(ascii: "-") { index += 1 }
        let integerStart = index
        let integerDigits = digits()
        guard integerDigits > 0 else { throw SyntaxError(offset: start, reason: "a number without digits") }
        if integerDigits > 1, input[integerStart] == UInt8(ascii: "0") {
            throw SyntaxError(offset: start, reason: "a number with a leading zero")
        }
        if index < input.count, input[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw SyntaxError(offset: index, reason: "a number without digits after '.'") }
        }
        if index < input.count, input[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < input.count, input[index] == UInt8(ascii: "+") || input[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw SyntaxError(offset: index, reason: "a number without exponent digits") }
        }
        return index
    }
}
