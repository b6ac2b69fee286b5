#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Writes a fixture as JSON laid out for diffs: one line per header field and per body, keys in reading order
/// (method, url, headers, body; status, reason, headers, body).
struct FixtureWriter {
    private var lines: [String] = []
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }()

    /// The text of `fixture`, ending with a newline.
    static func text(of fixture: Fixture) throws -> String {
        var writer = FixtureWriter()
        try writer.write(fixture)
        return writer.lines.joined(separator: "\n") + "\n"
    }

    private mutating func write(_ fixture: Fixture) throws {
        let redaction = fixture.redaction
        lines.append("{")
        lines.append("  \"format\": \(try json(Fixture.format)),")
        lines.append("  \"redacted\": {")
        lines.append("    \"headers\": \(try json(redaction.headerNames)),")
        lines.append("    \"queryItems\": \(try json(redaction.queryItemNames)),")
        lines.append("    \"bodyKeys\": \(try json(redaction.bodyKeys))")
        lines.append("  },")
        lines.append("  \"exchanges\": [" + (fixture.exchanges.isEmpty ? "]" : ""))
        for (index, exchange) in fixture.exchanges.enumerated() {
            let request = exchange.request, response = exchange.response
            lines.append("    {")
            lines.append("      \"request\": {")
            lines.append("        \"method\": \(try json(request.method)),")
            lines.append("        \"url\": \(try json(request.url)),")
            try write(request.headers, body: request.body)
            lines.append("      },")
            lines.append("      \"response\": {")
            lines.append("        \"status\": \(response.status),")
            lines.append("        \"reason\": \(try json(response.reason)),")
            try write(response.headers, body: response.body)
            lines.append("      }")
            lines.append("    }" + (index < fixture.exchanges.count - 1 ? "," : ""))
        }
        if !fixture.exchanges.isEmpty { lines.append("  ]") }
        lines.append("}")
    }

    private mutating func write(_ headers: [Fixture.Field], body: Fixture.Body?) throws {
        let end = body == nil ? "" : ","
        if headers.isEmpty {
            lines.append("        \"headers\": []" + end)
        } else {
            lines.append("        \"headers\": [")
            for (index, field) in headers.enumerated() {
                let comma = index < headers.count - 1 ? "," : ""
                lines.append("          [\(try json(field.name)), \(try json(field.value))]" + comma)
            }
            lines.append("        ]" + end)
        }
        guard let body else { return }
        var members: [String]
        if let text = body.text {
            members = ["\"text\": \(try json(text))"]
        } else {
            members = ["\"base64\": \(try json(body.bytes.base64EncodedString()))"]
        }
        if !body.isComplete { members.append("\"incomplete\": true") }
        lines.append("        \"body\": {" + members.joined(separator: ", ") + "}")
    }

    private func json(_ value: String) throws -> String {
        String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    private func json(_ values: [String]) throws -> String {
        "[" + (try values.map(json).joined(separator: ", ")) + "]"
    }
}
