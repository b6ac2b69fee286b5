import Foundation
import Parley

/// How `parley mcp` prints what a server sent: every control character escaped (a server cannot drive the terminal or
/// forge a line), lists as one item a line with tab-separated fields, structured values as JSON.
enum MCPOutput {
    /// One field of a line: on one line, every control character escaped (a tab as `\t`).
    static func field(_ text: String) -> String {
        PrintableText.escaping(text.split(whereSeparator: \.isNewline).joined(separator: " "))
    }

    /// A line of tab-separated fields, each escaped; empty trailing fields are left out.
    static func line(_ fields: String?...) -> String {
        var kept = fields.map { $0.map(field) ?? "" }
        while kept.count > 1, kept.last?.isEmpty == true { kept.removeLast() }
        return kept.joined(separator: "\t")
    }

    /// Text to print as it is, its lines and tabs kept and every other control character escaped.
    static func text(_ text: String) -> String {
        text.split(separator: "\t", omittingEmptySubsequences: false)
            .map { PrintableText.escaping(String($0), keepingLineFeeds: true) }
            .joined(separator: "\t")
    }

    /// `value` as JSON (indented, keys sorted), with the characters JSON leaves raw but a terminal obeys (DEL, C1
    /// controls, bidi controls, line separators) written as `\u` escapes: still the same JSON.
    static func json(_ value: JSONValue, pretty: Bool = true) -> String {
        let rendered = RPCCommand.render(value, pretty: pretty)
        // JSONEncoder escapes C0 controls inside strings, so a raw one is the indentation's line feed: kept.
        guard rendered.unicodeScalars.contains(where: { $0.value >= 0x7F && PrintableText.needsEscape($0) }) else {
            return rendered
        }
        var result = ""
        for scalar in rendered.unicodeScalars {
            if scalar.value >= 0x7F, PrintableText.needsEscape(scalar) {
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// Writes `parley: message` on standard error (the message already escaped where it holds a server's text).
    static func report(_ message: String) {
        Terminal.writeError("parley: \(message)\n")
    }

    /// Seconds, as `0.5` or `30`.
    static func seconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return value.rounded() == value && value < 1e15 ? String(Int64(value)) : String(value)
    }
}
