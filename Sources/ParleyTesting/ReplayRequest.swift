import Parley

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The parts of a request that replay matches on: method, path, query items and body.
struct ReplayRequest: Sendable {
    let method: String
    /// The path, percent-encoded, without the query.
    let path: String
    let query: [QueryItem]
    let body: Data?

    /// A request to `target` (path and query, as sent).
    init(method: String, target: String, body: Data?) {
        self.method = method
        self.body = body
        (path, query) = Self.split(target)
    }

    /// The path (still percent-encoded) and the decoded query items of `target`, such as `/users?page=2`.
    static func split(_ target: String) -> (path: String, query: [QueryItem]) {
        guard let mark = target.firstIndex(of: "?") else { return (target, []) }
        let query = target[target.index(after: mark)...]
        return (String(target[..<mark]), query.isEmpty ? [] : Query(percentEncoded: String(query)).items)
    }

    /// `GET /users/1?page=2`.
    var summary: String { query.isEmpty ? "\(method) \(path)" : "\(method) \(path)?\(Query(query).encoded)" }

    /// The query for messages: `page=2&sort=name`, or `none`.
    var queryText: String { query.isEmpty ? "none" : Query(query).encoded }

    /// Whether the sent items are the recorded ones (a recorded `<redacted>` value matches any value).
    static func queryMatches(recorded: [QueryItem], sent: [QueryItem], ordered: Bool) -> Bool {
        guard recorded.count == sent.count else { return false }
        func same(_ recorded: QueryItem, _ sent: QueryItem) -> Bool {
            recorded.name == sent.name && (recorded.value == FixtureRedaction.placeholder || recorded.value == sent.value)
        }
        if ordered { return zip(recorded, sent).allSatisfy(same) }
        var remaining = sent
        for item in recorded {
            guard let found = remaining.firstIndex(where: { same(item, $0) }) else { return false }
            remaining.remove(at: found)
        }
        return true
    }

    /// Whether the bodies match: equal JSON values when both are JSON, equal bytes otherwise (none equals empty).
    static func bodyMatches(recorded: Data?, sent: Data?) -> Bool {
        let recorded = recorded ?? Data(), sent = sent ?? Data()
        if recorded == sent { return true }
        let decoder = JSONDecoder()
        guard let left = try? decoder.decode(JSONValue.self, from: recorded),
            let right = try? decoder.decode(JSONValue.self, from: sent)
        else { return false }
        return matches(recorded: left, sent: right)
    }

    /// JSON equality where a recorded `"<redacted>"` matches any value.
    private static func matches(recorded: JSONValue, sent: JSONValue) -> Bool {
        switch (recorded, sent) {
        case (.string(FixtureRedaction.placeholder), _):
            return true
        case (.array(let left), .array(let right)):
            return left.count == right.count && zip(left, right).allSatisfy { matches(recorded: $0, sent: $1) }
        case (.object(let left), .object(let right)):
            return left.count == right.count
                && left.allSatisfy { key, value in right[key].map { matches(recorded: value, sent: $0) } ?? false }
        default:
            return recorded == sent
        }
    }

    /// A body for messages: its text (up to 120 characters), its size when binary, `none` when empty.
    static func excerpt(_ body: Data?) -> String {
        guard let body, !body.isEmpty else { return "none" }
        guard let text = String(validating: body, as: UTF8.self) else { return "<\(body.count) bytes>" }
        return text.count > 120 ? String(reflecting: String(text.prefix(120)) + "…") : String(reflecting: text)
    }
}
