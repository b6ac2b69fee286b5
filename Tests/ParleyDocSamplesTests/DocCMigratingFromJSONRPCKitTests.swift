// swift-format-ignore-file
// Laid out line for line as the swift blocks of the article it compiles (scripts/check-docs).
import Foundation
import Parley
import ParleyAsyncHTTPClient
import ParleyDemoServer
import ParleyJSONRPC
import Testing

// The ParleyJSONRPC blocks of Sources/ParleyJSONRPC/ParleyJSONRPC.docc/MigratingFromJSONRPCKit.md, compiled and run
// against the demo server.
enum DocCMigratingFromJSONRPCKit {
    struct Subtract: JSONRPCMethod {
        typealias Result = Int
        static let name = "subtract"
        let minuend: Int
        let subtrahend: Int
        var params: [Int] { [minuend, subtrahend] }
    }
}

extension DocCMigratingFromJSONRPCKit {
    @Suite("DocC: Migrating from JSONRPCKit", .timeLimit(.minutes(1)))
    struct Examples {
        @Test("a request as a method, a batch through a JSON-RPC client over HTTP, an error object")
        func migrated() async throws {
            let server = try await DemoServer.start()
            defer { Task { await server.stop() } }
            let baseURL = try #require(URL(string: server.baseURL))
            let rpc = JSONRPCClient(http: Client(baseURL: baseURL), path: "/rpc", ids: JSONRPCSequentialIDs())
            let request1 = Subtract(minuend: 42, subtrahend: 23)
            let request2 = Subtract(minuend: 23, subtrahend: 42)
            let (response1, response2) = try await rpc.batchValues(request1, request2)
            print(response1)   // 19
            print(response2)   // -19
            #expect(response1 == 19 && response2 == -19)

            let api = Client(baseURL: baseURL, headers: ["User-Agent": "my-app/1.0"], middlewares: [.retry(maxAttempts: 3)])
            let service = JSONRPCClient(http: api, path: "/rpc")
            do {
                let (response1, response2) = try await service.batchValues(request1, request2)
                print(response1, response2)   // 19 -19
            } catch {
                print(error)
            }
            #expect(try await service.batchValues(request1, request2) == (19, -19))

            do {
                _ = try await rpc.call(JSONRPCDynamicMethod("foobar"))
            } catch {
                print(error.kind, error.jsonRPCError?.code ?? 0, error.jsonRPCError?.message ?? "")   // jsonRPCError -32601 Method not found
            }
            let error = await #expect(throws: ParleyError.self) { try await rpc.call(JSONRPCDynamicMethod("foobar")) }
            #expect(error?.kind == .jsonRPCError)
            #expect(error?.jsonRPCError?.message == "Method not found")
        }
    }
}
