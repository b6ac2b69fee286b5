import Foundation
import Parley
import ParleyDemoServer
import ParleyJSONRPC
import Testing

@testable import ParleyTestSupport

/// JSON that attacks the decoder or the error messages: nesting past every limit, batches of stray answers.
@Suite("Hostile JSON: nesting and amplification", .timeLimit(.minutes(2)))
struct HostileJSONTests {
    @Test(
        "JSON nested 100 000 deep says it is nested too deeply, at what limit, in one period",
        arguments: TransportKind.allCases
    )
    func deepNesting(_ kind: TransportKind) async throws {
        try await withFaultClient(kind) { client, _ in
            for path: Path in ["/hostile/deep-json/100000", "/hostile/deep-json/513"] {
                let error = await expectParleyError(.decoding) { try await client.send(FaultCall<JSONValue>(path: path)) }
                let message = error?.message ?? ""
                #expect(message.contains("nested too deeply"), "\(message)")
                #expect(message.contains("512"), "\(message)")
                #expect(!message.contains("not valid JSON"), "\(message)")
                let description = error.map(\.description) ?? ""
                #expect(!description.contains(".."), "\(description)")
            }
            // 512 levels is within JSONDecoder's limit and decodes, on a cooperative thread, without overflowing
            // the stack.
            var value = try await client.send(FaultCall<JSONValue>(path: "/hostile/deep-json/512"))
            var depth = 0
            while case .array(let elements) = value {
                depth += 1
                value = elements.first ?? .null
            }
            #expect(depth == 512)
        }
    }

    @Test("JSONValue's own depth limit is configurable and says so when exceeded")
    func configurableDepth() throws {
        let nested = Data((String(repeating: "[", count: 20) + String(repeating: "]", count: 20)).utf8)
        let decoder = JSONDecoder()
        decoder.userInfo[JSONValue.maximumDepthKey] = 8
        #expect(throws: DecodingError.self) { try decoder.decode(JSONValue.self, from: nested) }
        do {
            _ = try decoder.decode(JSONValue.self, from: nested)
        } catch let error as DecodingError {
            let message = error.explanation.message
            #expect(message.contains("nested too deeply") && message.contains("8"), "\(message)")
            #expect(message.contains("JSONValue.maximumDepthKey"), "\(message)")
        }
        decoder.userInfo[JSONValue.maximumDepthKey] = 20
        #expect(throws: Never.self) { try decoder.decode(JSONValue.self, from: nested) }
        #expect(JSONValue.defaultMaximumDepth == 512)
    }

    @Test("a JSON-RPC answer nested too deeply says so", arguments: TransportKind.allCases)
    func deepJSONRPCAnswer(_ kind: TransportKind) async throws {
        try await withFaultClient(kind) { client, _ in
            let rpc = JSONRPCClient(http: client, path: "/hostile/deep-json/100000")
            let error = await expectParleyError(.jsonRPCProtocol) { try await rpc.call(Sum(params: [1])) }
            let message = error?.message ?? ""
            #expect(message.contains("nested too deeply") && message.contains("512"), "\(message)")
            #expect(!message.contains("not JSON"), "\(message)")
            let description = error.map(\.description) ?? ""
            #expect(!description.contains(".."), "\(description)")
        }
    }

    @Test(
        "a batch answered with 100 000 stray ids: each call's message names 3 and counts the rest",
        arguments: TransportKind.allCases
    )
    func strayAnswers(_ kind: TransportKind) async throws {
        try await withFaultClient(kind) { client, _ in
            let rpc = JSONRPCClient(http: client, path: "/hostile/rpc-strays/100000")
            var batch = JSONRPCBatch()
            let slots = (1...20).map { batch.call(Sum(params: [$0])) }
            let results = try await rpc.send(batch)
            #expect(results.unmatchedCount == 100_000)
            #expect(results.unmatched.count == 16)
            for slot in slots {
                guard case .failure(let error) = results[slot] else {
                    Issue.record("expected the call to fail: the batch answer has no answer for it")
                    continue
                }
                #expect(error.kind == .jsonRPCProtocol)
                #expect(error.message.contains("100000 answers that match no call"), "\(error.message.prefix(600))")
                #expect(error.message.contains("and 99997 more"), "\(error.message.prefix(600))")
                #expect(error.message.utf8.count < 1024, "\(error.message.utf8.count) bytes")
                #expect(error.description.utf8.count < 8 * 1024, "\(error.description.utf8.count) bytes")
            }
        }
    }
}
