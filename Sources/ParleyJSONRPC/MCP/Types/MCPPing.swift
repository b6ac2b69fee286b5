public import Parley

/// `ping`: checks that the server is alive.
public struct MCPPing: JSONRPCMethod {
    /// Nothing.
    public typealias Result = MCPEmptyResult
    /// `"ping"`.
    public static let name = "ping"
    /// `{}`.
    public let params: JSONValue

    /// A ping.
    public init() {
        params = [:]
    }

    /// `true`: it changes nothing.
    public var isRepeatable: Bool { true }
}
