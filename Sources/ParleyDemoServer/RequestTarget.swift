import Hummingbird

/// The raw request target, split into path and query exactly as received (still percent-encoded).
struct RequestTarget: Sendable {
    /// Raw path without the query, e.g. `/echo/a%20b`.
    let path: Substring
    /// Raw query without the leading `?`, or `nil` if the target had no `?`.
    let query: Substring?

    /// Splits `request.head.path`, which Hummingbird passes through undecoded.
    init(_ request: Request) {
        let target = request.head.path ?? "/"
        if let questionMark = target.firstIndex(of: "?") {
            self.path = target[..<questionMark]
            self.query = target[target.index(after: questionMark)...]
        } else {
            self.path = target[...]
            self.query = nil
        }
    }

    /// Parsed query items.
    var queryItems: QueryItems { QueryItems(rawQuery: self.query ?? "") }

    /// The path segments after `prefix` (a path like `/status`), or `nil` if the path is not
    /// `prefix` itself or below it.
    func remainder(after prefix: String) -> Substring? {
        guard self.path.hasPrefix(prefix) else { return nil }
        let rest = self.path.dropFirst(prefix.count)
        guard rest.isEmpty || rest.hasPrefix("/") else { return nil }
        return rest
    }
}
