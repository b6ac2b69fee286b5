extension ReplayTransport {
    /// How requests are matched with recorded exchanges. The method and the URL path always have to be equal; the
    /// scheme, host and port never do (the recording server's port is gone), nor do header fields.
    ///
    /// ```swift
    /// let replay = try ReplayTransport(fixture: url)                      // any order, query order ignored
    /// let strict = try ReplayTransport(fixture: url, matching: .strict)   // recorded order, exact query, bodies
    /// ```
    public struct Matching: Sendable, Hashable {
        /// Which recorded exchange may answer the next request.
        public enum Order: Sendable, Hashable {
            /// Only the next unused exchange in recorded order; anything else is a failure.
            case recorded
            /// The first unused exchange that matches, in recorded order (repeated requests, such as retries, get
            /// their recorded responses in turn).
            case any
        }

        /// Which exchange may answer the next request.
        public var order: Order
        /// Whether query items must come in the recorded order (otherwise the same items in any order match).
        public var queryOrderMatters: Bool
        /// Whether the request body must match the recorded one (JSON bodies are compared as JSON values).
        public var matchesBody: Bool
        /// Whether an exchange can answer again once every matching one has been used (``Order/any`` only): the
        /// last matching exchange answers the extra requests.
        public var reusesExchanges: Bool

        /// A matching policy; the defaults are the most lenient that still tell requests apart.
        public init(
            order: Order = .any,
            queryOrderMatters: Bool = false,
            matchesBody: Bool = false,
            reusesExchanges: Bool = false
        ) {
            self.order = order
            self.queryOrderMatters = queryOrderMatters
            self.matchesBody = matchesBody
            self.reusesExchanges = reusesExchanges
        }

        /// Recorded order, exact query order, bodies compared, each exchange once.
        public static let strict = Matching(order: .recorded, queryOrderMatters: true, matchesBody: true)
    }
}
