/// Checks JSON text and lays it out again token by token, without building a tree: object members stay in the
/// order the text has them, and numbers and strings are copied byte for byte (`1.0` stays `1.0`, `"\u00e9"` stays
/// escaped), so only whitespace and colours change.
struct JSONFormatter {
    /// How the tokens are laid out.
    enum Layout {
        /// One member or element per line, indented by two spaces per level; `{}` and `[]` when empty.
        case indented
        /// No whitespace at all.
        case compact
        /// The whitespace of the input, unchanged (for colours alone).
        case original
    }

    /// JSON text that does not parse, and where.
    struct SyntaxError: Error, CustomStringConvertible {
        /// The byte offset of the problem.
        let offset: Int
        /// What is wrong there.
        let reason: String

        var description: String { "\(reason) at byte \(offset)" }
    }

    /// The ANSI colours of the token kinds.
    private enum Color {
        static let key = Array("\u{1B}[34;1m".utf8)
        static let string = Array("\u{1B}[32m".utf8)
        static let number = Array("\u{1B}[36m".utf8)
        static let literal = Array("\u{1B}[35m".utf8)
        static let reset = Array("\u{1B}[0m".utf8)
    }

    /// What the scanner expects next.
    private enum Expectation {
        case value, firstMember, key, colon, afterValue, done
    }

    /// Deeper nesting is refused (indenting it would take more room than it is worth).
    static let maxDepth = 512

    var layout: Layout
    /// Whether keys, strings, numbers and `true`/`false`/`null` are wrapped in ANSI colours.
    var colors: Bool

    /// `input` laid out again, or the first syntax error in it (one JSON value, with whitespace around it).
    func format(_ input: [UInt8]) throws(SyntaxError) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(layout == .indented ? input.count * 2 : input.count)
        var openObjects: [Bool] = []  // one per open container: whether it is an object
        var expectation = Expectation.value
        var index = 0
        while true {
            let whitespaceStart = index
            while index < input.count, Self.isWhitespace(input[index]) { index += 1 }
            if layout == .original { output.append(contentsOf: input[whitespaceStart..<index]) }
            guard index < input.count else { break }
            let byte = input[index]
            switch expectation {
            case .done:
                throw SyntaxError(offset: index, reason: "unexpected data after the JSON value")
            case .colon:
                guard byte == UInt8(ascii: ":") else { throw SyntaxError(offset: index, reason: "expected ':'") }
                output.append(byte)
                if layout == .indented { output.append(UInt8(ascii: " ")) }
                index += 1
                expectation = .value
                continue
            case .afterValue:
                if byte == UInt8(ascii: ","), let isObject = openObjects.last {
                    output.append(byte)
                    newline(&output, depth: openObjects.count)
                    index += 1
                    expectation = isObject ? .key : .value
                    continue
                }
                guard let isObject = openObjects.last, byte == UInt8(ascii: isObject ? "}" : "]") else {
                    let reason =
                        openObjects.isEmpty ? "unexpected data after the JSON value" : "expected ',' or a closing bracket"
                    throw SyntaxError(offset: index, reason: reason)
                }
                openObjects.removeLast()
                newline(&output, depth: openObjects.count)
                output.append(byte)
                index += 1
                expectation = openObjects.isEmpty ? .done : .afterValue
                continue
            case .firstMember:
                let isObject = openObjects.last ?? false
                if byte == UInt8(ascii: isObject ? "}" : "]") {
                    openObjects.removeLast()
                    output.append(byte)
                    index += 1
                    expectation = openObjects.isEmpty ? .done : .afterValue
                    continue
                }
                newline(&output, depth: openObjects.count)
                expectation = isObject ? .key : .value
            case .key, .value:
                break
            }
            if expectation == .key {
                guard byte == UInt8(ascii: "\"") else { throw SyntaxError(offset: index, reason: "expected a string key") }
                let end = try Self.stringEnd(input, from: index)
                append(input[index..<end], color: Color.key, to: &output)
                index = end
                expectation = .colon
                continue
            }
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard openObjects.count < Self.maxDepth else {
                    throw SyntaxError(offset: index, reason: "nesting deeper than \(Self.maxDepth) levels")
                }
                openObjects.append(byte == UInt8(ascii: "{"))
                output.append(byte)
                index += 1
                expectation = .firstMember
                continue
            case UInt8(ascii: "\""):
                let end = try Self.stringEnd(input, from: index)
                append(input[index..<end], color: Color.string, to: &output)
                index = end
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let end = try Self.numberEnd(input, from: index)
                append(input[index..<end], color: Color.number, to: &output)
                index = end
            default:
                guard let literal = ["true", "false", "null"].first(where: { input[index...].starts(with: $0.utf8) }) else {
                    throw SyntaxError(offset: index, reason: "expected a JSON value")
                }
                append(input[index..<index + literal.utf8.count], color: Color.literal, to: &output)
                index += literal.utf8.count
            }
            expectation = openObjects.isEmpty ? .done : .afterValue
        }
        guard expectation == .done else {
            throw SyntaxError(offset: input.count, reason: input.isEmpty ? "no JSON value" : "the JSON text ends early")
        }
        return output
    }

    private func append(_ token: ArraySlice<UInt8>, color: [UInt8], to output: inout [UInt8]) {
        if colors { output.append(contentsOf: color) }
        output.append(contentsOf: token)
        if colors { output.append(contentsOf: Color.reset) }
    }

    /// A line break and the indentation of `depth`, for the indented layout.
    private func newline(_ output: inout [UInt8], depth: Int) {
        guard layout == .indented else { return }
        output.append(UInt8(ascii: "\n"))
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: depth * 2))
    }
}
