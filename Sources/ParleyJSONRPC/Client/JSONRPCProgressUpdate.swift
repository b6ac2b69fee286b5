public import Parley

/// One progress notification of a call, read by its ``JSONRPCProgress`` style.
public struct JSONRPCProgressUpdate: Sendable, Hashable {
    /// The work done so far, in the peer's unit; it increases with each update.
    public var progress: Double?
    /// The total, when the peer knows it.
    public var total: Double?
    /// A message for people, such as "Indexing 3 of 10 files".
    public var message: String?
    /// The notification's parameters as sent, for what the style does not read.
    public var params: JSONValue?

    /// An update.
    public init(progress: Double?, total: Double? = nil, message: String? = nil, params: JSONValue? = nil) {
        self.progress = progress
        self.total = total
        self.message = message
        self.params = params
    }

    /// `progress / total` in `0...1`, when both are known and the total is positive.
    public var fractionCompleted: Double? {
        guard let progress, let total, total > 0, progress.isFinite, total.isFinite else { return nil }
        return min(max(progress / total, 0), 1)
    }
}
