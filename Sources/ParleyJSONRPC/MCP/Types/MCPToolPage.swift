/// One page of ``MCPListTools``.
public struct MCPToolPage: Sendable, Hashable, Decodable {
    /// The tools of this page.
    public var tools: [MCPTool]
    /// The cursor of the next page; `nil` on the last.
    public var nextCursor: String?
}
