import Parley

/// The differences between two JSON values, as readable lines naming where they are (`body.items[2].name`).
enum JSONDifference {
    /// At most this many lines; the rest are counted.
    static let limit = 10

    /// The differences between `expected` and `received`, at `path`.
    static func between(_ expected: JSONValue, _ received: JSONValue, at path: String) -> [String] {
        var lines: [String] = []
        collect(expected, received, at: path, into: &lines)
        guard lines.count > limit else { return lines }
        return Array(lines.prefix(limit)) + ["… and \(lines.count - limit) more differences"]
    }

    private static func collect(_ expected: JSONValue, _ received: JSONValue, at path: String, into lines: inout [String]) {
        switch (expected, received) {
        case (.object(let left), .object(let right)):
            for key in left.keys.sorted() {
                let member = "\(path).\(key)"
                if let value = right[key] {
                    collect(left[key] ?? .null, value, at: member, into: &lines)
                } else {
                    lines.append("\(member): expected \(left[key] ?? .null), missing")
                }
            }
            for key in right.keys.sorted() where left[key] == nil {
                lines.append("\(path).\(key): not expected, received \(right[key] ?? .null)")
            }
        case (.array(let left), .array(let right)) where left.count == right.count:
            for (index, pair) in zip(left, right).enumerated() {
                collect(pair.0, pair.1, at: "\(path)[\(index)]", into: &lines)
            }
        case (.array(let left), .array(let right)):
            lines.append("\(path): expected \(left.count) elements \(expected), received \(right.count) \(received)")
        default:
            if expected != received { lines.append("\(path): expected \(expected), received \(received)") }
        }
    }
}
