import Hummingbird
import Parley

/// The demo server reads a request's target with Parley's own ``RequestTarget``: path and query exactly as received
/// (still percent-encoded).
extension RequestTarget {
    /// The target of `request`: `request.head.path`, which Hummingbird passes through undecoded.
    init(_ request: Request) {
        self.init(request.head.path ?? "/")
    }

    /// Parsed query items.
    var queryItems: QueryItems { QueryItems(rawQuery: queryText ?? "") }

    /// The path segments after `prefix` (a path like `/status`), or `nil` if the path is not
    /// `prefix` itself or below it.
    func remainder(after prefix: String) -> Substring? {
        guard path.hasPrefix(prefix) else { return nil }
        let rest = path.dropFirst(prefix.count)
        guard rest.isEmpty || rest.hasPrefix("/") else { return nil }
        return rest
    }
}
