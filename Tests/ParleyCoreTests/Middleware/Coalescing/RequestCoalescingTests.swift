import Foundation
import Parley
import ParleyDemoServer
import Testing

@testable import ParleyTestSupport

/// Holds the requests that reach it until opened, and tells how many arrived.
private final class RequestGate: ClientMiddleware, Sendable {
    private struct State {
        var isOpen = false
        var waiting: [UUID: CheckedContinuation<Void, any Error>] = [:]
    }

    private let state = LockedBox(State())
    let arrivals: AsyncStream<Void>
    private let arrived: AsyncStream<Void>.Continuation

    init() { (arrivals, arrived) = AsyncStream.makeStream(of: Void.self) }

    func open() {
        let waiting = state.mutate { state -> [CheckedContinuation<Void, any Error>] in
            state.isOpen = true
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        for continuation in waiting { continuation.resume() }
    }

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        arrived.yield()
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // The cancellation flag read once: read twice, a cancellation between the reads left the continuation
                // both stored (for the handler to resume) and resumed here.
                let isOpen = state.mutate { state -> Bool in
                    let goesOn = state.isOpen || Task.isCancelled
                    if !goesOn { state.waiting[id] = continuation }
                    return goesOn
                }
                if isOpen { continuation.resume() }
            }
        } onCancel: {
            state.mutate { $0.waiting.removeValue(forKey: id) }?.resume(throwing: CancellationError())
        }
        try Task.checkCancellation()
        return try await next(request, body, baseURL)
    }
}

/// Counts the callers that joined another's request, in all.
private final class Joins: Sendable {
    private struct State {
        var count = 0
        var waiting: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = LockedBox(State())

    func joined() {
        let ready = state.mutate { state -> [CheckedContinuation<Void, Never>] in
            state.count += 1
            let ready = state.waiting.filter { $0.count <= state.count }.map(\.continuation)
            state.waiting.removeAll { $0.count <= state.count }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    /// Returns once `count` callers have joined, since the start.
    func wait(until count: Int) async {
        await withCheckedContinuation { continuation in
            let isThere = state.mutate { state -> Bool in
                if state.count >= count { return true }
                state.waiting.append((count, continuation))
                return false
            }
            if isThere { continuation.resume() }
        }
    }
}

private struct SharedFlaky: Endpoint {
    typealias Response = JSONValue
    var path: Path = "/flaky"
    var query: Query
    var headers: Headers = [:]
}

private struct SharedFlakyCount: Endpoint {
    typealias Response = JSONValue
    var path: Path = "/flaky/count"
    var query: Query
}

@Suite("Request coalescing: concurrent identical GETs share one request (demo server)", .timeLimit(.minutes(1)))
struct RequestCoalescingTests {
    private static func client(_ transport: TransportKind, _ server: DemoServer, joins: Joins, gate: RequestGate) throws -> Client
    {
        let coalescing = RequestCoalescingMiddleware(
            ignoredFields: RequestCoalescingMiddleware.defaultIgnoredFields,
            maxSharedBodySize: 1024 * 1024,
            joined: { joins.joined() }
        )
        return Client(
            baseURL: try #require(URL(string: server.baseURL)),
            transport: transport.makeTransport(),
            middlewares: [coalescing, gate]
        )
    }

    private static func count(_ client: Client, key: String) async throws -> String? {
        try await client.send(SharedFlakyCount(query: ["key": key]))["attempts"]?.stringValue
    }

    @Test("20 identical GETs, one request; each caller gets the whole response", arguments: TransportKind.allCases)
    func shared(transport: TransportKind) async throws {
        let server = try await DemoServer.start()
        let joins = Joins()
        let gate = RequestGate()
        let client = try Self.client(transport, server, joins: joins, gate: gate)
        let key = "coalesce-\(UUID().uuidString)"
        async let answers = withThrowingTaskGroup(of: JSONValue.self) { group in
            for _ in 0..<20 { group.addTask { try await client.send(SharedFlaky(query: ["key": .init(key), "failures": "0"])) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        await joins.wait(until: 19)
        gate.open()
        let all = try await answers
        #expect(all.count == 20)
        #expect(Set(all.map { $0["attempts"] }).count == 1, "\(all)")
        #expect(try await Self.count(client, key: key) == "1")
        try await client.shutdown()
        await server.stop()
    }

    @Test("different credentials are different requests, never shared", arguments: TransportKind.allCases)
    func credentials(transport: TransportKind) async throws {
        let server = try await DemoServer.start()
        let joins = Joins()
        let gate = RequestGate()
        let client = try Self.client(transport, server, joins: joins, gate: gate)
        let key = "coalesce-\(UUID().uuidString)"
        async let ada = client.send(
            SharedFlaky(query: ["key": .init(key), "failures": "0"], headers: ["Authorization": "Bearer ada"])
        )
        async let bob = client.send(
            SharedFlaky(query: ["key": .init(key), "failures": "0"], headers: ["Authorization": "Bearer bob"])
        )
        var arrivals = gate.arrivals.makeAsyncIterator()
        _ = await arrivals.next()
        _ = await arrivals.next()
        gate.open()
        let answers = try await [ada, bob]
        #expect(Set(answers.compactMap { $0["attempts"] }) == [1, 2], "\(answers)")
        #expect(try await Self.count(client, key: key) == "2")
        try await client.shutdown()
        await server.stop()
    }

    @Test(
        "a waiting caller that is cancelled leaves at once; the first caller cancelled, the next one sends it",
        arguments: TransportKind.allCases
    )
    func cancellation(transport: TransportKind) async throws {
        let server = try await DemoServer.start()
        let joins = Joins()
        let gate = RequestGate()
        let client = try Self.client(transport, server, joins: joins, gate: gate)
        let key = "coalesce-\(UUID().uuidString)"
        let endpoint = SharedFlaky(query: ["key": .init(key), "failures": "0"])
        var arrivals = gate.arrivals.makeAsyncIterator()
        // The first caller's request waits at the gate; a second one joins it, then is cancelled.
        let first = Task { try await client.send(endpoint) }
        _ = await arrivals.next()
        let second = Task { try await client.send(endpoint) }
        await joins.wait(until: 1)
        second.cancel()
        await expectParleyError(.cancelled) { _ = try await second.value }
        // A third joins, then the first is cancelled: the third sends the request itself, and gets the answer.
        let third = Task { try await client.send(endpoint) }
        await joins.wait(until: 2)
        first.cancel()
        await expectParleyError(.cancelled) { _ = try await first.value }
        _ = await arrivals.next()  // the third's own request at the gate
        gate.open()
        #expect(try await third.value["attempts"] == 1)
        #expect(try await Self.count(client, key: key) == "1", "the cancelled requests never reached the server")
        try await client.shutdown()
        await server.stop()
    }

    @Test(
        "each caller keeps its own head deadline: a shorter one fails alone, a longer one outlives the first caller's",
        arguments: TransportKind.allCases
    )
    func ownDeadlines(transport: TransportKind) async throws {
        let server = try await DemoServer.start()
        let joins = Joins()
        let gate = RequestGate()
        let coalescing = RequestCoalescingMiddleware(
            ignoredFields: RequestCoalescingMiddleware.defaultIgnoredFields,
            maxSharedBodySize: 1024 * 1024,
            joined: { joins.joined() }
        )
        // Two clients sharing one coalescing middleware: the same requests, different response head limits.
        func client(headTimeout: Duration) throws -> Client {
            var configuration = Client.Configuration()
            configuration.responseHeadTimeout = headTimeout
            return Client(
                baseURL: try #require(URL(string: server.baseURL)),
                transport: transport.makeTransport(),
                middlewares: [coalescing, gate],
                configuration: configuration
            )
        }
        let short = try client(headTimeout: .milliseconds(300))
        let long = try client(headTimeout: .seconds(30))
        let slow = SlowAnswer(query: ["ms": "1500"])
        var arrivals = gate.arrivals.makeAsyncIterator()

        // The short one sends, the long one joins: the short one's head deadline passes, the long one sends again
        // under its own and gets the answer.
        let first = Task { try await short.send(slow) }
        _ = await arrivals.next()
        let second = Task { try await long.send(slow) }
        await joins.wait(until: 1)
        gate.open()
        await expectParleyError(.timeout) { _ = try await first.value }
        #expect(try await second.value["slept"] == 1500)

        // The long one sends, the short one joins: the short one fails at its own deadline, not the long one's.
        let leader = Task { try await long.send(slow) }
        _ = await arrivals.next()
        let follower = Task { try await short.send(slow) }
        await joins.wait(until: 2)
        await expectParleyError(.timeout) { _ = try await follower.value }
        #expect(try await leader.value["slept"] == 1500)
        try await short.shutdown()
        try await long.shutdown()
        await server.stop()
    }
}

private struct SlowAnswer: Endpoint {
    typealias Response = JSONValue
    var path: Path = "/slow"
    var query: Query
}
