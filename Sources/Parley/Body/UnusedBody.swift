import OpenAPIRuntime

/// The one way Parley drops a response body it will not use (a redirect's, a 401's before a replay, a retried
/// attempt's): read a little of it, so that a short body's connection can be reused, then let it go.
enum UnusedBody {
    /// The most bytes read before the body is dropped (and its connection with it).
    static let drainLimit = 64 * 1024

    /// Reads up to ``drainLimit`` bytes of `body`, then drops it. A failure to read it changes nothing.
    static func drain(_ body: HTTPBody?) async {
        guard let body else { return }
        var count = 0
        do {
            for try await chunk in body {
                count += chunk.count
                if count >= drainLimit { return }
            }
        } catch {
            return
        }
    }
}
