import Foundation
import HTTPTypes
import Hummingbird
import OpenAPIRuntime
import Parley
import ParleyAsyncHTTPClient
import Testing

@testable import ParleyJSONRPC
@testable import ParleyTestSupport

/// Opens once; everything waiting on it goes on then.
private final class Gate: Sendable {
    private let state = LockedBox<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.mutate { state -> Bool in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.mutate { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// A JSON-RPC server of the test's own on `/rpc` that records how many messages each POST held and answers as its
/// mode says: `sum` and `subtract` computed, each id once, unless the mode says otherwise.
private final class BatchServer: Sendable {
    enum Mode: Sendable {
        /// Answers at once.
        case answer
        /// Answers once ``gate`` is open.
        case hang
        /// Answers every batch with one error object (id null) of about `bytes` bytes, slow to decode.
        case hugeError(bytes: Int)
        /// Answers every batch with one error object (id null) whose message is `lines` lines of text (36 bytes each
        /// once decoded, 37 on the wire).
        case hugeMessage(lines: Int)
        /// Answers the `subtract` calls twice.
        case subtractTwice
    }

    let mode: Mode
    let gate = Gate()
    /// The number of messages of each POST, in arrival order.
    let sizes = LockedBox<[Int]>([])
    /// The `X-Route` field of each POST (nil when it has none), in arrival order, with its number of messages.
    let routes = LockedBox<[(route: String?, messages: Int)]>([])
    /// Each POST's number of messages, as it arrives.
    let arrivals: AsyncStream<Int>
    private let arrived: AsyncStream<Int>.Continuation
    private let server: TestServer

    var baseURL: URL {
        get throws { try #require(URL(string: "http://127.0.0.1:\(server.port)")) }
    }

    private init(mode: Mode, server: TestServer, arrivals: AsyncStream<Int>, arrived: AsyncStream<Int>.Continuation) {
        self.mode = mode
        self.server = server
        self.arrivals = arrivals
        self.arrived = arrived
    }

    static func start(_ mode: Mode) async throws -> BatchServer {
        let (arrivals, arrived) = AsyncStream<Int>.makeStream()
        let box = LockedBox<BatchServer?>(nil)
        let router = Router(context: BasicRequestContext.self)
        router.post("rpc") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            guard let server = box.value else { return Response(status: .serviceUnavailable) }
            let route = request.headers.first { $0.name.canonicalName == "x-route" }?.value
            return try await server.answer(Data(body.readableBytesView), route: route)
        }
        let server = try await TestServer.start(router, label: "parley.batch-server")
        let batchServer = BatchServer(mode: mode, server: server, arrivals: arrivals, arrived: arrived)
        box.mutate { $0 = batchServer }
        return batchServer
    }

    func stop() async {
        gate.open()
        arrived.finish()
        await server.stop()
    }

    private func answer(_ body: Data, route: String?) async throws -> Response {
        let message = try JSONDecoder().decode(JSONValue.self, from: body)
        let messages: [JSONValue]
        if case .array(let elements) = message { messages = elements } else { messages = [message] }
        sizes.mutate { $0.append(messages.count) }
        routes.mutate { $0.append((route, messages.count)) }
        arrived.yield(messages.count)
        var answers: [JSONValue] = []
        switch mode {
        case .hugeError(let bytes):
            // Written as bytes (encoding a JSONValue this large would cost the server more than the client's read):
            // 20 000 numbers, which take a JSONValue about a second to decode, and a string to make up the size.
            let numbers = String(repeating: "1,", count: 20_000) + "1"
            let text = String(repeating: "x", count: max(bytes - 40_000, 0))
            return Self.json(
                Data(
                    (#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request","data":{"numbers":["#
                        + numbers + #"],"text":""# + text + #""}}}"#).utf8
                )
            )
        case .hugeMessage(let lines):
            let text = String(repeating: #"The element is not a valid request.\n"#, count: lines)
            return Self.json(Data((#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":""# + text + #""}}"#).utf8))
        case .hang:
            await gate.wait()
        case .answer, .subtractTwice:
            break
        }
        for message in messages {
            guard let id = message["id"], case .array(let params)? = message["params"] else { continue }
            let numbers = params.compactMap { value -> Int? in if case .int(let number) = value { number } else { nil } }
            let method = message["method"]?.stringValue
            let result = method == "subtract" ? numbers[0] - numbers.dropFirst().reduce(0, +) : numbers.reduce(0, +)
            let answer: JSONValue = ["jsonrpc": "2.0", "id": id, "result": .int(result)]
            answers.append(answer)
            if case .subtractTwice = mode, method == "subtract" { answers.append(answer) }
        }
        let isBatch = if case .array = message { true } else { false }
        return Self.json(try JSONEncoder().encode(isBatch ? .array(answers) : answers[0]))
    }

    private static func json(_ data: Data) -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data))
        )
    }
}

/// Tells when each request a client sends ends, and how.
private final class RequestEnds: ClientMiddleware, Sendable {
    let ends: AsyncStream<String>
    private let ended: AsyncStream<String>.Continuation

    init() {
        (ends, ended) = AsyncStream<String>.makeStream()
    }

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        do {
            let response = try await next(request, body, baseURL)
            ended.yield("answered \(response.0.status.code)")
            return response
        } catch {
            ended.yield("failed: \(error)")
            throw error
        }
    }
}

/// Runs `call`, returning its outcome.
private func outcome<T: Sendable>(_ call: () async throws(ParleyError) -> T) async -> Result<T, ParleyError> {
    do throws(ParleyError) {
        return .success(try await call())
    } catch {
        return .failure(error)
    }
}

/// A `sum` call with a header field of its own, as MCP's routing headers are.
private struct RoutedSum: JSONRPCMethod {
    typealias Result = Int
    static let name = "sum"
    let params: [Int]
    var headerFields: Headers { ["X-Route": "alone"] }
}

@Suite("JSONRPCBatchingChannel against a hostile or slow server (issue 24, items 12 and 13)")
struct BatchingChannelHardeningTests {
    /// A client of its own on `server`, whose transport and response-head limits are far above the test's time
    /// limit, so that only the calls' own timeouts can end a call in time.
    private func rpc(
        _ server: BatchServer,
        window: Duration,
        maxBatchSize: Int,
        middlewares: [any ClientMiddleware] = []
    ) throws -> (JSONRPCClient, Client) {
        var configuration = Client.Configuration()
        configuration.responseHeadTimeout = .seconds(300)
        let client = Client(
            baseURL: try server.baseURL,
            transport: makeFaultTransport(.asyncHTTPClient, idleTimeout: .seconds(300)),
            middlewares: middlewares,
            configuration: configuration
        )
        let channel = JSONRPCBatchingChannel(
            JSONRPCHTTPChannel(client: client, path: "/rpc"),
            window: window,
            maxBatchSize: maxBatchSize
        )
        return (JSONRPCClient(channel: channel), client)
    }

    @Test(
        "a call whose batch hangs fails at its own timeout; the batch goes on for the call still waiting",
        .timeLimit(.minutes(1))
    )
    func timeoutWhileInFlight() async throws {
        let server = try await BatchServer.start(.hang)
        let (rpc, client) = try rpc(server, window: .seconds(30), maxBatchSize: 2)
        async let patient = outcome { () throws(ParleyError) in try await rpc.call(Sum(params: [1, 2])) }
        let hasty = await outcome { () throws(ParleyError) in try await rpc.call(Sum(params: [3, 4]), timeout: .seconds(2)) }
        #expect(hasty.failure?.kind == .timeout, "\(hasty)")
        server.gate.open()
        #expect(try await patient.get() == 3)
        #expect(server.sizes.value == [2])
        try await client.shutdown()
        await server.stop()
    }

    /// One POST carries one set of header fields: a call with its own goes alone, with them, and the calls batched
    /// beside it in the same window carry none of them.
    @Test("a call with header fields of its own goes alone, with them; the batch beside it has none", .timeLimit(.minutes(1)))
    func headerFieldsGoAlone() async throws {
        let server = try await BatchServer.start(.answer)
        // A batch of two leaves as soon as both have arrived: no window has to end for this test.
        let (rpc, client) = try rpc(server, window: .seconds(30), maxBatchSize: 2)
        async let routed = outcome { () throws(ParleyError) in try await rpc.call(RoutedSum(params: [10, 20])) }
        async let first = outcome { () throws(ParleyError) in try await rpc.call(Sum(params: [1, 2])) }
        async let second = outcome { () throws(ParleyError) in try await rpc.call(Sum(params: [3, 4])) }
        #expect(try await routed.get() == 30)
        #expect(try await first.get() == 3)
        #expect(try await second.get() == 7)
        let routes = server.routes.value
        #expect(routes.count == 2, "\(routes)")
        #expect(routes.contains { $0.route == "alone" && $0.messages == 1 }, "\(routes)")
        #expect(routes.contains { $0.route == nil && $0.messages == 2 }, "\(routes)")
        try await client.shutdown()
        await server.stop()
    }

    @Test("a batch whose callers all timed out is cancelled", .timeLimit(.minutes(1)))
    func batchCancelledWhenNobodyWaits() async throws {
        let server = try await BatchServer.start(.hang)
        let ends = RequestEnds()
        let (rpc, client) = try rpc(server, window: .seconds(30), maxBatchSize: 2, middlewares: [ends])
        async let first = outcome { () throws(ParleyError) in try await rpc.call(Sum(params: [1, 2]), timeout: .seconds(2)) }
        async let second = outcome { () throws(ParleyError) in try await rpc.call(Sum(params: [3, 4]), timeout: .seconds(2)) }
        #expect(await first.failure?.kind == .timeout)
        #expect(await second.failure?.kind == .timeout)
        // The server never answers while the gate is closed: only the batch's cancellation ends its request.
        var iterator = ends.ends.makeAsyncIterator()
        let end = await iterator.next()
        #expect(end?.hasPrefix("failed") == true, "\(end ?? "nil")")
        try await client.shutdown()
        await server.stop()
    }

    @Test("100 concurrent calls with a batch size of 5 reach the server as 20 batches of 5", .timeLimit(.minutes(1)))
    func fullBatches() async throws {
        let server = try await BatchServer.start(.answer)
        let (rpc, client) = try rpc(server, window: .milliseconds(500), maxBatchSize: 5)
        let results = await withTaskGroup(of: (Int, Result<Int, ParleyError>).self) { group in
            for index in 0..<100 {
                group.addTask {
                    (index, await outcome { () throws(ParleyError) in try await rpc.call(Sum(params: [index, 1000])) })
                }
            }
            var results: [Int: Result<Int, ParleyError>] = [:]
            for await (index, result) in group { results[index] = result }
            return results
        }
        for index in 0..<100 { #expect(try results[index]?.get() == index + 1000) }
        #expect(server.sizes.value == Array(repeating: 5, count: 20))
        try await client.shutdown()
        await server.stop()
    }

    @Test("one 8 MiB error object answering a batch of 20 is read once and shared by the calls", .timeLimit(.minutes(1)))
    func hugeErrorObject() async throws {
        let server = try await BatchServer.start(.hugeError(bytes: 8 << 20))
        let (rpc, client) = try rpc(server, window: .seconds(30), maxBatchSize: 20)
        let results = await withTaskGroup(of: Result<Int, ParleyError>.self) { group in
            for index in 0..<20 {
                group.addTask { await outcome { () throws(ParleyError) in try await rpc.call(Sum(params: [index])) } }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(server.sizes.value == [20])
        #expect(results.count == 20)
        for result in results {
            #expect(result.failure?.kind == .jsonRPCError)
            #expect(result.failure?.jsonRPCError?.code == -32600)
            // The error of the whole batch (read once), not each call's reading of it.
            #expect(result.failure?.message.contains("answered the whole batch with one error object") == true)
        }
        try await client.shutdown()
        await server.stop()
    }

    /// The lines of an error message of 8 MiB on the wire, and its size once decoded.
    private static let hugeLines = (8 << 20) / 37
    private static let hugeMessageSize = hugeLines * 36

    /// The bounds of a failure that reports an error object with a huge message: the message an excerpt with its size,
    /// the error's description one readable paragraph. Only sizes and yes-or-no are expected (a failed expectation
    /// prints what it compared, and a message of megabytes would take the report's time).
    private func expectBounded(_ failure: ParleyError?, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(failure?.kind == .jsonRPCError, sourceLocation: sourceLocation)
        #expect(failure?.jsonRPCError?.code == -32600, sourceLocation: sourceLocation)
        let message = failure?.jsonRPCError?.message ?? ""
        let messageSize = message.utf8.count
        #expect(messageSize <= ParleyError.excerptLimit, sourceLocation: sourceLocation)
        let isExcerpt = message.hasPrefix("The element is not a valid request.\n")
        let noted = message.hasSuffix(" of \(Self.hugeMessageSize) bytes)")
        let tail = String(decoding: message.utf8.suffix(80), as: UTF8.self)
        #expect(isExcerpt && noted, "ends with \(tail)", sourceLocation: sourceLocation)
        let description = failure?.description ?? ""
        let descriptionSize = description.utf8.count
        #expect(descriptionSize <= 3 * ParleyError.excerptLimit, sourceLocation: sourceLocation)
        let saysWhat = description.contains("answered the whole batch with one error object")
        #expect(saysWhat, sourceLocation: sourceLocation)
    }

    @Test(
        "an error object with an 8 MiB message answering a batch of 20 is decoded once; each call's error keeps an excerpt",
        .timeLimit(.minutes(1))
    )
    func hugeErrorMessage() async throws {
        let server = try await BatchServer.start(.hugeMessage(lines: Self.hugeLines))
        let (rpc, client) = try rpc(server, window: .seconds(30), maxBatchSize: 20)
        let results = await withTaskGroup(of: Result<Int, ParleyError>.self) { group in
            for index in 0..<20 {
                // Half with a timeout of their own (far off): a call that watches a limit reports a failure through
                // another path.
                let timeout: Duration? = index.isMultiple(of: 2) ? .seconds(300) : nil
                group.addTask {
                    await outcome { () throws(ParleyError) in try await rpc.call(Sum(params: [index]), timeout: timeout) }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(server.sizes.value == [20])
        #expect(results.count == 20)
        for result in results { expectBounded(result.failure) }
        try await client.shutdown()
        await server.stop()
    }

    @Test(
        "the batching channel hands no caller the bytes of an answer to the whole batch: one shared failure",
        .timeLimit(.minutes(1))
    )
    func sharedAnswerReadOnce() async throws {
        let server = try await BatchServer.start(.hugeMessage(lines: Self.hugeLines))
        let client = Client(
            baseURL: try server.baseURL,
            transport: makeFaultTransport(.asyncHTTPClient, idleTimeout: .seconds(300))
        )
        let channel = JSONRPCBatchingChannel(
            JSONRPCHTTPChannel(client: client, path: "/rpc"),
            window: .seconds(30),
            maxBatchSize: 20
        )
        // The channel alone: a caller handed the reply would decode its 8 MiB again; each must get the failure that
        // the channel's one reading of the answer made.
        let results = await withTaskGroup(of: Result<JSONRPCReply?, ParleyError>.self) { group in
            for index in 0..<20 {
                let message = Data(#"{"jsonrpc":"2.0","method":"sum","params":[\#(index)],"id":\#(index)}"#.utf8)
                let exchange = JSONRPCExchange(methods: ["sum"], ids: [.number(index)], isRepeatable: false)
                group.addTask {
                    await outcome { () throws(ParleyError) in try await channel.exchange(message, describing: exchange) }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(server.sizes.value == [20])
        #expect(results.count == 20)
        for result in results { expectBounded(result.failure) }
        #expect(Set(results.map { $0.failure?.description ?? "" }).count == 1)
        try await client.shutdown()
        await server.stop()
    }

    @Test(
        "JSONRPCClient.send of a batch answered with one error object of an 8 MiB message: each call's error keeps an excerpt",
        .timeLimit(.minutes(1))
    )
    func hugeErrorMessageUnbatched() async throws {
        let server = try await BatchServer.start(.hugeMessage(lines: Self.hugeLines))
        let client = Client(
            baseURL: try server.baseURL,
            transport: makeFaultTransport(.asyncHTTPClient, idleTimeout: .seconds(300))
        )
        let rpc = JSONRPCClient(channel: JSONRPCHTTPChannel(client: client, path: "/rpc"))
        var batch = JSONRPCBatch()
        let slots = (0..<20).map { batch.call(Sum(params: [$0])) }
        let results = try await rpc.send(batch)
        #expect(server.sizes.value == [20])
        for slot in slots { expectBounded(results[slot].failure) }
        #expect(results.unmatched.count == 1)
        expectBounded(results.unmatched.first)
        try await client.shutdown()
        await server.stop()
    }

    @Test("an id answered twice in a batch fails its call as jsonRPCProtocol; the others get their results")
    func idAnsweredTwice() async throws {
        let server = try await BatchServer.start(.subtractTwice)
        let (rpc, client) = try rpc(server, window: .seconds(30), maxBatchSize: 3)
        async let difference = outcome { () throws(ParleyError) in try await rpc.call(Subtract(params: [10, 3])) }
        async let sum = outcome { () throws(ParleyError) in try await rpc.call(Sum(params: [1, 2])) }
        async let other = outcome { () throws(ParleyError) in try await rpc.call(Sum(params: [3, 4])) }
        let twice = await difference
        #expect(twice.failure?.kind == .jsonRPCProtocol, "\(twice)")
        #expect(try await sum.get() == 3)
        #expect(try await other.get() == 7)
        #expect(server.sizes.value == [3])
        try await client.shutdown()
        await server.stop()
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { error } else { nil }
    }
}
