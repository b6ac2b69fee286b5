/// The directives of `Cache-Control` fields (RFC 9111, section 5.2), names lower-cased, later duplicates ignored.
struct CacheControl: Sendable, Equatable {
    private var directives: [String: String?] = [:]

    /// The directives of every `Cache-Control` value in `values` (each a comma-separated list).
    init(_ values: [String]) {
        for value in values {
            for item in Self.split(value) {
                let trimmed = item.trimmingHTTPWhitespace()
                guard !trimmed.isEmpty else { continue }
                let name: String
                var argument: String?
                if let equals = trimmed.firstIndex(of: "=") {
                    name = trimmed[..<equals].trimmingHTTPWhitespace().lowercased()
                    var text = String(trimmed[trimmed.index(after: equals)...].trimmingHTTPWhitespace())
                    if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") { text = String(text.dropFirst().dropLast()) }
                    argument = text
                } else {
                    name = trimmed.lowercased()
                }
                if directives[name] == nil { directives[name] = .some(argument) }
            }
        }
    }

    /// Whether `name` is present.
    func has(_ name: String) -> Bool { directives[name] != nil }

    /// The seconds of `name` (`max-age=60`); `nil` when absent or not a number (then treated as absent). A value
    /// beyond 2^31 counts as 2^31 (``HeaderNumber/deltaSeconds(_:)``, RFC 9111 section 1.2.2).
    func seconds(_ name: String) -> Int? {
        guard let argument = directives[name], let text = argument else { return nil }
        return HeaderNumber.deltaSeconds(text)
    }

    var noStore: Bool { has("no-store") }
    var noCache: Bool { has("no-cache") }
    var isPrivate: Bool { has("private") }
    var isPublic: Bool { has("public") }
    var mustRevalidate: Bool { has("must-revalidate") || has("proxy-revalidate") }
    var onlyIfCached: Bool { has("only-if-cached") }

    /// Commas inside quoted strings do not split.
    private static func split(_ value: String) -> [Substring] {
        var parts: [Substring] = []
        var start = value.startIndex
        var quoted = false
        var index = value.startIndex
        while index < value.endIndex {
            let character = value[index]
            if character == "\"" { quoted.toggle() }
            if character == ",", !quoted {
                parts.append(value[start..<index])
                start = value.index(after: index)
            }
            index = value.index(after: index)
        }
        parts.append(value[start...])
        return parts
    }
}
