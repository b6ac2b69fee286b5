/// The result of ``MCPComplete``: the suggested values of an argument.
///
/// Decoded straight from the `completion/complete` result, whose `completion` member holds these fields
/// (`{"completion": {"values": […], "total": …, "hasMore": …}}`), so the call returns the completion itself.
public struct MCPCompletion: Sendable, Hashable, Decodable {
    /// The suggestions, best first (at most 100 by the specification).
    public var values: [String]
    /// How many suggestions there are in all, if the server knows; it can exceed ``values``' count.
    public var total: Int?
    /// Whether there are more suggestions than ``values``.
    public var hasMore: Bool

    private enum ResultKeys: String, CodingKey {
        case completion
    }

    private enum CodingKeys: String, CodingKey {
        case values, total, hasMore
    }

    /// Decodes the `completion` member of a `completion/complete` result; missing `values` are none and a
    /// missing `hasMore` is `false`.
    public init(from decoder: any Decoder) throws {
        let result = try decoder.container(keyedBy: ResultKeys.self)
        let container = try result.nestedContainer(keyedBy: CodingKeys.self, forKey: .completion)
        values = try container.decodeIfPresent([String].self, forKey: .values) ?? []
        total = try container.decodeIfPresent(Int.self, forKey: .total)
        hasMore = try container.decodeIfPresent(Bool.self, forKey: .hasMore) ?? false
    }
}
