import Foundation
import HTTPTypes
import Hummingbird
import OpenAPIRuntime
import Parley
import ParleyAsyncHTTPClient
import Testing

@testable import ParleyJSONRPC
@testable import ParleyTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The heap in use, in bytes, over all of glibc's arenas (`mallinfo2` counts the main one alone, and Swift's
/// threads allocate in others): from `malloc_info`'s totals, the memory the arenas hold minus their free chunks,
/// plus the blocks mapped on their own. `nil` where there is no glibc.
private func heapInUse() -> Int? {
    #if canImport(Glibc)
        // `malloc_info` is in malloc.h, which the Glibc module does not import.
        typealias MallocInfo = @convention(c) (Int32, UnsafeMutablePointer<FILE>?) -> Int32
        guard let symbol = dlsym(nil, "malloc_info") else { return nil }
        let mallocInfo = unsafeBitCast(symbol, to: MallocInfo.self)
        var buffer: UnsafeMutablePointer<CChar>?
        var length = 0
        guard let stream = open_memstream(&buffer, &length) else { return nil }
        _ = mallocInfo(0, stream)
        fclose(stream)
        guard let buffer else { return nil }
        defer { free(buffer) }
        let report = String(cString: buffer)
        // The totals of all arenas follow the last arena.
        guard let last = report.range(of: "</heap>", options: .backwards) else { return nil }
        let totals = report[last.upperBound...]
        /// The `size` of the element that starts with `tag`.
        func size(_ tag: String) -> Int? {
            guard let element = totals.range(of: tag), let attribute = totals[element.upperBound...].range(of: #"size=""#)
            else { return nil }
            return Int(totals[attribute.upperBound...].prefix { $0.isNumber })
        }
        guard let fast = size(#"<total type="fast""#), let rest = size(#"<total type="rest""#),
            let mapped = size(#"<total type="mmap""#), let current = size(#"<system type="current""#)
        else { return nil }
        return current - fast - rest + mapped
    #else
        return nil
    #endif
}

/// The resident set of the process, in bytes (`/proc/self/statm`), or `nil` where there is none.
private func residentBytes() -> Int? {
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
    let fields = statm.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
    return pages * Int(getpagesize())
}

/// Tells each request the client sends, as it goes (before the transport).
private final class RequestsSent: ClientMiddleware, Sendable {
    let sent: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() {
        (sent, continuation) = AsyncStream<Void>.makeStream()
    }

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        continuation.yield()
        return try await next(request, body, baseURL)
    }
}

/// Opens once; what waits on it goes on then. Tells each waiter as it starts waiting.
private final class Gate: Sendable {
    private let state = LockedBox<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))
    let waiting: AsyncStream<Void>
    private let waiter: AsyncStream<Void>.Continuation

    init() {
        (waiting, waiter) = AsyncStream<Void>.makeStream()
    }

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.mutate { state -> Bool in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() } else { waiter.yield() }
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

@Suite(
    "JSONRPCBatchingChannel: what each waiting call holds (issue 33, item 7)",
    .disabled(
        if: ProcessInfo.processInfo.environment["PARLEY_BATCHING_MEMORY"] == nil,
        "measures the process's heap, which other suites running beside it change; set PARLEY_BATCHING_MEMORY=1 and run it alone"
    )
)
struct BatchingChannelMemoryTests {
    /// A server answering the `sum` calls of a batch, as bytes (no JSONValue per call): at once, or once the gate
    /// that `holding` holds is open.
    private static func server(holding: LockedBox<Gate?>) async throws -> TestServer {
        let router = Router(context: BasicRequestContext.self)
        router.post("rpc") { request, _ -> Response in
            let body = Data(try await request.body.collect(upTo: 4 << 20).readableBytesView)
            if let gate = holding.value { await gate.wait() }
            var answer = Data("[".utf8)
            for (index, element) in (JSONRPCFrame.elements(body) ?? []).enumerated() {
                guard case .number(let number)? = JSONRPCFrame.requestID(element) else { continue }
                if index > 0 { answer.append(UInt8(ascii: ",")) }
                answer.append(contentsOf: #"{"jsonrpc":"2.0","id":\#(number),"result":\#(number)}"#.utf8)
            }
            answer.append(UInt8(ascii: "]"))
            return Response(
                status: .ok,
                headers: [.contentType: "application/json"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer))
            )
        }
        return try await TestServer.start(router, label: "parley.batch-memory-server")
    }

    /// Runs `call(index)` for `count` indices at once; once `allWaiting` returns (every call waits), reads the heap
    /// and runs `release`. Returns how many calls succeeded, and the heap they held while all waited, per call.
    private static func measure(
        _ count: Int,
        allWaiting: () async -> Void,
        release: () -> Void,
        _ call: @escaping @Sendable (Int) async -> Bool
    ) async -> (succeeded: Int, perCall: Int?, residentPerCall: Int?) {
        let before = heapInUse()
        let residentBefore = residentBytes()
        return await withTaskGroup(of: Bool.self) { group in
            for index in 0..<count {
                group.addTask { await call(index) }
            }
            await allWaiting()
            let waiting = heapInUse()
            let residentWaiting = residentBytes()
            release()
            var succeeded = 0
            for await success in group where success { succeeded += 1 }
            let resident = residentBefore.flatMap { before in residentWaiting.map { ($0 - before) / count } }
            guard let before, let waiting else { return (succeeded, nil, resident) }
            return (succeeded, (waiting - before) / count, resident)
        }
    }

    /// 10 000 concurrent calls through a batching channel (batches of 100), held by the server until every batch
    /// has left the channel: the heap they hold while all wait, per call, is printed (the measurement of issue 33,
    /// item 7), beside what 10 000 tasks waiting on a continuation hold (the callers' own tasks), and the channel's
    /// part of it is bounded, so that a per-call copy of a batch, its answer or a task per call shows.
    @Test("10 000 waiting calls in batches of 100: the heap each holds", .timeLimit(.minutes(1)))
    func heapPerWaitingCall() async throws {
        let calls = 10_000
        let batchSize = 100
        let holding = LockedBox<Gate?>(nil)
        let server = try await Self.server(holding: holding)
        let sent = RequestsSent()
        let client = Client(
            baseURL: try #require(URL(string: "http://127.0.0.1:\(server.port)")),
            transport: makeFaultTransport(.asyncHTTPClient, idleTimeout: .seconds(300)),
            middlewares: [sent]
        )
        let channel = JSONRPCBatchingChannel(
            JSONRPCHTTPChannel(client: client, path: "/rpc"),
            window: .seconds(300),
            maxBatchSize: batchSize
        )
        let rpc = JSONRPCClient(channel: channel)
        var requests = sent.sent.makeAsyncIterator()
        // A full batch first, so that the connection pool, the task loop and the decoders' first use are in the
        // baseline.
        let warm = await Self.measure(batchSize, allWaiting: {}, release: {}) { index in
            (try? await rpc.call(Sum(params: [index]))) != nil
        }
        #expect(warm.succeeded == batchSize)
        _ = await requests.next()

        // The callers' own tasks: each waits on a continuation.
        let tasksGate = Gate()
        var tasksWaiting = tasksGate.waiting.makeAsyncIterator()
        let tasks = await Self.measure(
            calls,
            allWaiting: { for _ in 0..<calls { _ = await tasksWaiting.next() } },
            release: { tasksGate.open() }
        ) { _ in
            await tasksGate.wait()
            return true
        }
        #expect(tasks.succeeded == calls)

        // Messages through the channel itself.
        let channelGate = Gate()
        holding.mutate { $0 = channelGate }
        let exchanged = await Self.measure(
            calls,
            allWaiting: { for _ in 0..<(calls / batchSize) { _ = await requests.next() } },
            release: { channelGate.open() }
        ) { index in
            let message = Data(#"{"jsonrpc":"2.0","method":"sum","params":[\#(index)],"id":\#(index)}"#.utf8)
            let exchange = JSONRPCExchange(methods: ["sum"], ids: [.number(index)], isRepeatable: false)
            return (try? await channel.exchange(message, describing: exchange)) != nil
        }
        #expect(exchanged.succeeded == calls)

        // Calls of a JSONRPCClient over the channel.
        let callsGate = Gate()
        holding.mutate { $0 = callsGate }
        let called = await Self.measure(
            calls,
            allWaiting: { for _ in 0..<(calls / batchSize) { _ = await requests.next() } },
            release: { callsGate.open() }
        ) { index in
            (try? await rpc.call(Sum(params: [index]))) != nil
        }
        #expect(called.succeeded == calls)

        // Calls with a timeout of their own (far off): the call's limits are watched beside it.
        let timedGate = Gate()
        holding.mutate { $0 = timedGate }
        let timed = await Self.measure(
            calls,
            allWaiting: { for _ in 0..<(calls / batchSize) { _ = await requests.next() } },
            release: { timedGate.open() }
        ) { index in
            (try? await rpc.call(Sum(params: [index]), timeout: .seconds(300))) != nil
        }
        #expect(timed.succeeded == calls)

        if let task = tasks.perCall, let exchange = exchanged.perCall, let call = called.perCall, let timedCall = timed.perCall {
            print(
                "batching memory: \(calls) waiting callers (batches of \(batchSize)), each holds (heap; resident): "
                    + "a task alone \(task) B; \(tasks.residentPerCall ?? 0) B, "
                    + "channel.exchange \(exchange) B; \(exchanged.residentPerCall ?? 0) B, "
                    + "JSONRPCClient.call \(call) B; \(called.residentPerCall ?? 0) B, "
                    + "with a timeout \(timedCall) B; \(timed.residentPerCall ?? 0) B"
            )
            // What the channel holds per waiting call, its async frames included (in a debug build, 4.7 KiB on
            // 2026-12-07, 5.4 KiB before issue 33): a copy of its batch or of its answer per call (6 KiB for a batch of
            // 100) shows.
            #expect(exchange - task < 8 << 10)
        }
        try await client.shutdown()
        await server.stop()
    }
}
