import HTTPTypes
import Hummingbird
import NIOCore
import Parley
package import ParleyJSONRPC

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The demo server's JSON-RPC 2.0 API at `POST /rpc`: the methods of the specification's examples, so its
/// examples can be replayed with curl, plus a few for the demo and the tests.
enum RPCRoutes {
    /// The largest JSON-RPC message the demo server reads.
    static let maxMessageSize = 8 * 1024 * 1024

    /// The router with every demo method.
    static func makeRouter() -> JSONRPCRouter {
        var router = JSONRPCRouter()
        router.register("subtract") { (operands: SubtractParams) in operands.minuend - operands.subtrahend }
        router.register("sum") { (numbers: [Int]) in numbers.reduce(0, +) }
        router.register("get_data") { () in [JSONValue.string("hello"), .int(5)] }
        router.register("update") { (_: [JSONValue]) in JSONValue.null }
        router.register("notify_hello") { (_: [JSONValue]) in JSONValue.null }
        router.register("notify_sum") { (_: [Int]) in JSONValue.null }
        router.register("echo") { (value: JSONValue) in value }
        router.register("fail") { (failure: FailParams) -> JSONValue in
            throw JSONRPCError(code: failure.code, message: failure.message, data: failure.data)
        }
        return router
    }

    /// Registers `POST /rpc`: 200 with the answer, or 204 when there is none (only notifications).
    static func register(on router: Router<DemoRequestContext>) {
        let rpc = makeRouter()
        router.post("rpc") { request, _ -> Response in
            let body = try await request.body.collect(upTo: maxMessageSize)
            guard let answer = await rpc.handle(Data(body.readableBytesView)) else {
                return Response(status: .noContent)
            }
            return DemoResponses.raw(ByteBuffer(bytes: answer), contentType: "application/json")
        }
        // An HTTP error status with a JSON-RPC error object (`?plain` for a plain-text body instead).
        router.post("rpc/http-error/:status") { request, context -> Response in
            for try await _ in request.body {}
            let code = context.parameters.get("status", as: Int.self) ?? 500
            let status = HTTPResponse.Status(code: code)
            if request.uri.queryParameters["plain"] != nil {
                return DemoResponses.text("the JSON-RPC backend is down", status: status)
            }
            let body =
                #"{"jsonrpc":"2.0","error":{"code":-32000,"message":"Server overloaded","data":{"retryAfter":3}},"id":null}"#
            return DemoResponses.raw(ByteBuffer(string: body), contentType: "application/json", status: status)
        }
    }

    /// `subtract`'s operands, positional (`[42, 23]`) or named (`{"minuend": 42, "subtrahend": 23}`).
    struct SubtractParams: Decodable, Sendable {
        let minuend: Int
        let subtrahend: Int

        enum CodingKeys: String, CodingKey {
            case minuend, subtrahend
        }

        init(from decoder: any Decoder) throws {
            if var positional = try? decoder.unkeyedContainer() {
                minuend = try positional.decode(Int.self)
                subtrahend = try positional.decode(Int.self)
                guard positional.isAtEnd else {
                    throw DecodingError.dataCorrupted(
                        .init(codingPath: positional.codingPath, debugDescription: "subtract takes two numbers")
                    )
                }
            } else {
                let named = try decoder.container(keyedBy: CodingKeys.self)
                minuend = try named.decode(Int.self, forKey: .minuend)
                subtrahend = try named.decode(Int.self, forKey: .subtrahend)
            }
        }
    }

    /// `fail`'s parameters: the error object to answer with.
    struct FailParams: Decodable, Sendable {
        let code: Int
        let message: String
        let data: JSONValue?
    }
}

extension DemoServer {
    /// The demo server's JSON-RPC router (the specification's example methods and a few more), to serve it
    /// elsewhere (stdio, tests).
    package static func jsonRPCRouter() -> JSONRPCRouter { RPCRoutes.makeRouter() }
}
