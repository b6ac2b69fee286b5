public import Parley

/// `server/discover` (protocol 2026-07-28): the versions the server speaks and what it can do, without a session.
public struct MCPDiscover: JSONRPCMethod {
    /// The server's answer.
    public typealias Result = MCPDiscoverResult
    /// `"server/discover"`.
    public static let name = "server/discover"
    /// `{}`; the client adds the `_meta` every 2026-07-28 request carries.
    public let params: JSONValue

    /// A discovery.
    public init() {
        params = [:]
    }

    /// `true`: a read.
    public var isRepeatable: Bool { true }
}
