public import Parley

/// A typed JSON-RPC method: its name, its parameters and the type of its result.
///
/// ```swift
/// struct Subtract: JSONRPCMethod {
///     typealias Result = Int
///     static let name = "subtract"
///     let params: [Int]                 // positional: "params": [42, 23]
/// }
/// ```
///
/// `Params` that encode as a JSON array are positional, as an object are named. Leave `params` out
/// (``JSONRPCNoParams``) and the request has no `params` member. `Result` decodes from the response's `result`.
public protocol JSONRPCMethod: Sendable {
    /// The parameters; ``JSONRPCNoParams`` to send none.
    associatedtype Params: Encodable & Sendable = JSONRPCNoParams
    /// What the call returns.
    associatedtype Result: Decodable & Sendable

    /// The method name, such as `"eth_blockNumber"`.
    static var name: String { get }

    /// The method name of this call; ``name`` unless a dynamic method overrides it.
    var methodName: String { get }

    /// The parameters of this call.
    var params: Params { get }

    /// Whether the call may be sent again with the same effect: a read such as `eth_call` or `eth_getBalance`.
    /// Retries apply only to such calls: the HTTP ``/Parley/RetryMiddleware`` (status 429, 503 …, a broken
    /// connection) and ``JSONRPCRetryPolicy`` (error codes such as `-32005`). `false` by default.
    var isRepeatable: Bool { get }

    /// Header fields a channel over HTTP sends with this call (``JSONRPCExchange/headerFields``), such as the routing
    /// headers of MCP's 2026-07-28 Streamable HTTP; empty by default. Other channels ignore them.
    var headerFields: Headers { get }
}

extension JSONRPCMethod {
    /// ``name``.
    public var methodName: String { Self.name }

    /// `false`: a call is not repeated unless it says so.
    public var isRepeatable: Bool { false }

    /// No header fields of its own.
    public var headerFields: Headers { [:] }
}

extension JSONRPCMethod where Params == JSONRPCNoParams {
    /// No parameters: the request has no `params` member.
    public var params: JSONRPCNoParams { JSONRPCNoParams() }
}

/// No parameters: a request with these has no `params` member at all.
public struct JSONRPCNoParams: Encodable, Sendable, Hashable {
    /// No parameters.
    public init() {}
    /// Never called: requests leave `params` out.
    public func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(
            self,
            .init(codingPath: encoder.codingPath, debugDescription: "JSONRPCNoParams is never encoded")
        )
    }
}

/// A call by name with dynamic parameters and result, for exploring an API without declaring types.
///
/// ```swift
/// let height: JSONValue = try await rpc.call(JSONRPCDynamicMethod("eth_blockNumber"))
/// ```
public struct JSONRPCDynamicMethod: JSONRPCMethod {
    /// The result: any JSON.
    public typealias Result = JSONValue
    /// Unused: ``methodName`` names a dynamic call.
    public static var name: String { "" }

    /// The method name.
    public let methodName: String
    /// The parameters, if any (must be `.array` or `.object`).
    public let dynamicParams: JSONValue?
    /// Whether the call may be sent again with the same effect (see ``JSONRPCMethod/isRepeatable``).
    public let isRepeatable: Bool

    /// A call of `method` with `params` (`.array` for positional, `.object` for named, `nil` for none); `repeatable`
    /// when it may be sent again with the same effect (a read).
    public init(_ method: String, params: JSONValue? = nil, repeatable: Bool = false) {
        self.methodName = method
        self.dynamicParams = params
        self.isRepeatable = repeatable
    }

    /// The parameters as sent; see ``dynamicParams``.
    public var params: JSONValue? { dynamicParams }
}
