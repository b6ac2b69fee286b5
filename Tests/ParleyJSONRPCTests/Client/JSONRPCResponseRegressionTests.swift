import Foundation
import Parley
import ParleyJSONRPC
import Testing

@testable import ParleyTestSupport

/// Inputs found by `scripts/fuzz` (target FuzzJSONRPCResponse), replayed through the property they broke.
///
/// Deeply nested answers: `JSONValue` tried every scalar type before the containers, and each failed attempt
/// throws an error carrying the coding path, which JSONDecoder builds in time growing with the depth. An answer of
/// 500 nested arrays or objects (2.5 KB) took over a second to decode (11 s under AddressSanitizer, past the
/// fuzzer's hang limit), on the client and in `JSONRPCRouter` alike: a peer could stall either with a few
/// kilobytes.
@Suite("Fuzz regressions: JSON-RPC responses", .timeLimit(.minutes(1)))
struct JSONRPCResponseRegressionTests {
    /// `[[[…]]]` or `{"a":{"a":…}}`, `depth` levels around `1`.
    static func nested(_ depth: Int, objects: Bool) -> JSONValue {
        (0..<depth).reduce(JSONValue.int(1)) { inner, _ in objects ? .object(["a": inner]) : .array([inner]) }
    }

    @Test("A deeply nested result goes through the router and back to the client unchanged", arguments: TransportKind.allCases)
    func deeplyNestedEcho(transport: TransportKind) async throws {
        try await withDemoClient(transport, configuration: .init(timeout: .seconds(30))) { client, _ in
            let rpc = JSONRPCClient(http: client, path: "/rpc")
            for objects in [true, false] {
                let deep = Self.nested(400, objects: objects)
                let echoed = try await rpc.call(EchoRPC(params: [deep]))
                #expect(echoed == .array([deep]))
            }
        }
    }

    @Test("Eight answers of 500 nested objects side by side decode whole, each level an object")
    func deeplyNestedObjectsDecode() throws {
        // The fuzzer's input: 20 KB that took about 10 s to decode before the fix, 0.1 s after. How long it takes is
        // the benchmarks' to measure, not a unit test's bound (one that a loaded machine can miss); this checks the
        // value: 500 levels (within the depth limit) each decoded as an object, none as a scalar or an array.
        let one = String(repeating: #"{"a":"#, count: 500) + "1" + String(repeating: "}", count: 500)
        let document = Data(("[" + Array(repeating: one, count: 8).joined(separator: ",") + "]").utf8)
        let decoded = try JSONDecoder().decode(JSONValue.self, from: document)
        #expect(decoded == .array(Array(repeating: Self.nested(500, objects: true), count: 8)))
    }
}
