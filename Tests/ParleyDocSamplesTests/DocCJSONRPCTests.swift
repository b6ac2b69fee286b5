// swift-format-ignore-file
// Laid out line for line as the swift blocks of the article it compiles (scripts/check-docs).
import Foundation
import Parley
import ParleyAsyncHTTPClient
import ParleyDemoServer
import ParleyJSONRPC
import ParleyJSONRPCStdio
import Testing
import Tracing

// The Swift blocks of Sources/ParleyJSONRPC/ParleyJSONRPC.docc/JSONRPC.md, compiled and run against the demo server.
enum DocCJSONRPC {
    struct Subtract: JSONRPCMethod {
        typealias Result = Int
        static let name = "subtract"
        let params: [Int]
    }

    struct NamedSubtract: JSONRPCMethod {
        struct Params: Encodable, Sendable {
            let minuend: Int
            let subtrahend: Int
        }
        typealias Result = Int
        static let name = "subtract"
        let params: Params
    }

    struct Sum: JSONRPCMethod {
        typealias Result = Int
        static let name = "sum"
        let params: [Int]
    }

    struct GetData: JSONRPCMethod {
        typealias Result = [JSONValue]
        static let name = "get_data"
    }

    struct NotifyHello: JSONRPCMethod {
        typealias Result = JSONValue
        static let name = "notify_hello"
        let params: [Int]
    }

    struct Initialize: JSONRPCMethod {
        struct Params: Encodable, Sendable {
            @ExplicitNull var processId: Int?     // sent as "processId": null
            var rootUri: String?                  // left out when nil
        }
        typealias Result = JSONValue
        static let name = "echo"
        let params: Params
    }

    struct BlockSum: JSONRPCMethod {
        typealias Result = Int
        static let name = "sum"
        let params: [Int]
        var isRepeatable: Bool { true }     // a read: safe to send again
    }

    struct Shortfall: Decodable, Sendable {
        let balance: Int
    }

    struct Withdrawal: Decodable, Sendable {
        let amount: Int
    }

    /// The article's declarations of the demo server's address, the `parley` tool and a subscription peer: compiled,
    /// not run (the suite passes in a demo server of its own, PARLEY_BIN, and a peer of scripts/start-peers).
    static func declarationsOfTheArticle() throws {
let baseURL = URL(string: "http://127.0.0.1:8080")!   // swift run parley demo --serve --port 8080
let client = Client(baseURL: baseURL)
let rpc = JSONRPCClient(http: client, path: "/rpc")
        _ = rpc

let parley = URL(filePath: ".build/debug/parley")   // swift build --product parley, in a checkout of Parley
        _ = parley

let peer = try JSONRPCStreamChannel.launch(executable: URL(filePath: "/usr/local/bin/price-feed"), framing: .contentLength)
        _ = peer
    }
}

extension DocCJSONRPC {
    @Suite("DocC: JSON-RPC", .timeLimit(.minutes(1)))
    struct Examples {
        @Test("calls, notifications, error objects, batches and request ids over HTTP")
        func overHTTP() async throws {
            let server = try await DemoServer.start()
            defer { Task { await server.stop() } }
            let baseURL = try #require(URL(string: server.baseURL))
            let client = Client(baseURL: baseURL)
            let rpc = JSONRPCClient(http: client, path: "/rpc")
            print(try await rpc.call(Subtract(params: [42, 23])))                                   // 19
            print(try await rpc.call(NamedSubtract(params: .init(minuend: 42, subtrahend: 23))))    // 19
            print(try await rpc.call(JSONRPCDynamicMethod("get_data")))                                    // ["hello",5]
            try await rpc.notify(NotifyHello(params: [7]))
            let node = JSONRPCClient(
                http: Client(baseURL: baseURL, middlewares: [.retry()]), path: "/rpc",
                retry: JSONRPCRetryPolicy(maxAttempts: 4, retryableCodes: [-32005]), tracer: InstrumentationSystem.tracer
            )
            print(try await node.call(BlockSum(params: [1, 2])))                                     // 3
            #expect(try await node.call(BlockSum(params: [1, 2])) == 3)
            let echoed = try await rpc.call(JSONRPCDynamicMethod("echo", params: ["newHeads", ["includeTransactions": true]]))
            print(echoed[path: 1, "includeTransactions"]?.boolValue ?? false)                         // true
            #expect(echoed[path: 1, "includeTransactions"]?.boolValue == true)
            #expect(try await rpc.call(Initialize(params: .init(processId: nil, rootUri: nil))) == ["processId": nil])
            #expect(try await rpc.call(NamedSubtract(params: .init(minuend: 42, subtrahend: 23))) == 19)
            #expect(try await rpc.call(JSONRPCDynamicMethod("get_data")) == .array([.string("hello"), .int(5)]))

            let failure = JSONRPCDynamicMethod(
                "fail",
                params: .object(["code": .int(-32001), "message": .string("Insufficient funds"), "data": .object(["balance": .int(3)])])
            )
            do {
                _ = try await rpc.call(failure)
            } catch {
                print(error.kind, error.jsonRPCError?.code ?? 0)                        // jsonRPCError -32001
                print(try error.jsonRPCError?.data(as: Shortfall.self)?.balance ?? 0)   // 3
            }
            let error = await #expect(throws: ParleyError.self) { try await rpc.call(failure) }
            #expect(error?.kind == .jsonRPCError)
            #expect(error?.jsonRPCError?.code == -32001)
            #expect(try error?.jsonRPCError?.data(as: Shortfall.self)?.balance == 3)

            let (sum, missing, data) = try await rpc.batch(Sum(params: [1, 2, 4]), JSONRPCDynamicMethod("foobar"), GetData())
            print(try sum.get(), try data.get())                            // 7 ["hello", 5]
            if case .failure(let error) = missing { print(error.jsonRPCError?.code ?? 0) }   // -32601

            let (seven, nineteen) = try await rpc.batchValues(Sum(params: [1, 2, 4]), Subtract(params: [42, 23]))

            var batch = JSONRPCBatch()
            let slot = batch.call(Sum(params: [seven, nineteen]))
            batch.notify(NotifyHello(params: [7]))
            let results = try await rpc.send(batch)
            print(try results[slot].get())                                  // 26
            #expect(try sum.get() == 7 && seven == 7 && nineteen == 19)
            #expect(try data.get() == [.string("hello"), .int(5)])
            guard case .failure(let notFound) = missing else {
                Issue.record("foobar answered")
                return
            }
            #expect(notFound.jsonRPCError?.code == JSONRPCError.Code.methodNotFound)
            #expect(try results[slot].get() == 26)

            let stringIDs = JSONRPCClient(http: client, path: "/rpc", ids: JSONRPCUUIDIDs())
            let counter = JSONRPCSequentialIDs(startingAt: 1000)
            let prefixed = JSONRPCClient(http: client, path: "/rpc", ids: JSONRPCCustomIDs { .string("req-\(counter.next())") })
            print(try await stringIDs.call(Sum(params: [1, 2])), try await prefixed.call(Sum(params: [3, 4])))   // 3 7
            let listed = JSONRPCClient(http: client, path: "/rpc", ids: JSONRPCListedIDs(["first", "second"], then: JSONRPCUUIDIDs()))
            print(try await listed.call(Sum(params: [5, 6])))                                        // 11
            #expect(try await listed.call(Sum(params: [5, 6])) == 11)

            let editor = JSONRPCClient(http: client, path: "/rpc", timeout: .seconds(10), cancellation: .lsp)
            print(try await editor.call(Sum(params: [1, 2]), timeout: .seconds(2)))                // 3
            #expect(try await editor.call(Sum(params: [1, 2]), timeout: .seconds(2)) == 3)
            #expect(try await stringIDs.call(Sum(params: [1, 2])) == 3)
            #expect(try await prefixed.call(Sum(params: [3, 4])) == 7)
            #expect(counter.next() == .number(1002))   // the two calls of `prefixed` above took 1000 and 1001
        }

        @Test("a router answering over a pair of pipes")
        func routerOverPipes() async throws {
            var router = JSONRPCRouter()
            router.register("sum") { (numbers: [Int]) in numbers.reduce(0, +) }
            router.register(Subtract.self) { params in params[0] - params[1] }
            router.register("get_data") { () in [JSONValue.string("hello"), .int(5)] }
            router.register("withdraw") { (request: Withdrawal) -> Int in
                guard request.amount <= 3 else {
                    throw JSONRPCError(code: -32001, message: "Insufficient funds", data: .object(["balance": .int(3)]))
                }
                return 3 - request.amount
            }

            let answer = await router.handle(Data(#"{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}"#.utf8))
            print(String(decoding: answer ?? Data(), as: UTF8.self))   // {"jsonrpc":"2.0","result":19,"id":1}
            let decoded = try JSONDecoder().decode(JSONValue.self, from: try #require(answer))
            #expect(decoded["result"] == .int(19) && decoded["id"] == .int(1))

            let toServer = Pipe()
            let toClient = Pipe()
            let serving = Task { [router] in
                try await router.serve(input: toServer.fileHandleForReading, output: toClient.fileHandleForWriting, framing: .newlineDelimited)
            }
            let channel = JSONRPCStreamChannel(
                input: toClient.fileHandleForReading, output: toServer.fileHandleForWriting, framing: .newlineDelimited
            )
            let piped = JSONRPCClient(channel: channel)
            print(try await piped.call(Sum(params: [1, 2, 4])))   // 7
            try toServer.fileHandleForWriting.close()   // the server's input ends: it answers what it read and returns
            try await serving.value
            try toClient.fileHandleForWriting.close()   // and so does the channel's
        }

        @Test("the router's answers, errors included, through a stream channel")
        func routerAnswers() async throws {
            var router = JSONRPCRouter()
            router.register("withdraw") { (request: Withdrawal) -> Int in
                guard request.amount <= 3 else {
                    throw JSONRPCError(code: -32001, message: "Insufficient funds", data: .object(["balance": .int(3)]))
                }
                return 3 - request.amount
            }
            let toServer = Pipe()
            let toClient = Pipe()
            let serving = Task { [router] in
                try await router.serve(input: toServer.fileHandleForReading, output: toClient.fileHandleForWriting, framing: .contentLength)
            }
            let channel = JSONRPCStreamChannel(input: toClient.fileHandleForReading, output: toServer.fileHandleForWriting, framing: .contentLength)
            let rpc = JSONRPCClient(channel: channel)
            #expect(try await rpc.call(JSONRPCDynamicMethod("withdraw", params: .object(["amount": .int(2)]))) == .int(1))
            let refused = await #expect(throws: ParleyError.self) { try await rpc.call(JSONRPCDynamicMethod("withdraw", params: .object(["amount": .int(5)]))) }
            #expect(refused?.kind == .jsonRPCError)
            #expect(try refused?.jsonRPCError?.data(as: Shortfall.self)?.balance == 3)
            try toServer.fileHandleForWriting.close()
            try await serving.value
            try toClient.fileHandleForWriting.close()
        }

        @Test(
            "a child process launched over its standard input and output",
            .enabled(if: ProcessInfo.processInfo.environment["PARLEY_BIN"] != nil, "needs PARLEY_BIN, the built parley tool (scripts/test sets it)")
        )
        func childProcess() async throws {
            let parley = URL(fileURLWithPath: try #require(ProcessInfo.processInfo.environment["PARLEY_BIN"]))
            let child = try JSONRPCStreamChannel.launch(executable: parley, arguments: ["serve-stdio"], framing: .contentLength)
            let local = JSONRPCClient(channel: child)
            print(try await local.call(Subtract(params: [42, 23])))   // 19
            let exit = await child.shutdown()
            print(exit?.description ?? "")                            // exited with status 0
            #expect(exit?.isSuccess == true)
        }

        @Test(
            "a subscription over a child process's standard input and output",
            .enabled(
                if: ProcessInfo.processInfo.environment["PARLEY_PYTHON"] != nil
                    && ProcessInfo.processInfo.environment["PARLEY_STDIO_PEER"] != nil,
                "scripts/start-peers exports PARLEY_PYTHON and PARLEY_STDIO_PEER"
            )
        )
        func stdioSubscription() async throws {
            let environment = ProcessInfo.processInfo.environment
            let peer = try JSONRPCStreamChannel.launch(
                executable: URL(fileURLWithPath: try #require(environment["PARLEY_PYTHON"])),
                arguments: [try #require(environment["PARLEY_STDIO_PEER"])],
                framing: .contentLength
            )
            let ticks = try await peer.subscribe(
                JSONRPCDynamicMethod("subscribe", params: ["prices", 3]),
                notifications: .parameter("subscription", of: "tick"),
                unsubscribe: "unsubscribe"
            )
            var seen = 0
            for try await tick in ticks {
                print(tick.params?["n"] ?? .null)   // 0, 1, 2
                seen += 1
                if seen == 3 { break }
            }
            await ticks.cancel()   // the peer receives unsubscribe with the subscription's key
            #expect(seen == 3)
            let rpc = JSONRPCClient(channel: peer)
            #expect(try await rpc.call(JSONRPCDynamicMethod("received", params: ["unsubscribe"])).arrayValue?.count == 1)
            #expect(await peer.shutdown()?.isSuccess == true)
        }
    }
}
