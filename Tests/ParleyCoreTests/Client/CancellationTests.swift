import Foundation
import Parley
import Testing

@testable import ParleyTestSupport

struct Hang: Endpoint {
    typealias Response = Data
    let id: String
    var path: Path { "/hang" }
    var query: Query { ["id": id] }
}

/// Streams `/hang` and signals once the response head arrived (so the server surely has the request).
struct HangSignalling: Endpoint {
    struct Decoder: ResponseDecoder {
        let started: AsyncStream<Void>.Continuation
        func decode(_ response: ResponseBody) async throws {
            started.yield()
            try await response.discard()
        }
    }
    typealias Response = Void
    let id: String
    let started: AsyncStream<Void>.Continuation
    var path: Path { "/hang" }
    var query: Query { ["id": id] }
    var decoder: Decoder { Decoder(started: started) }
}

struct HangStatus: Endpoint {
    struct Status: Decodable, Sendable {
        let id: String
        let closed: Bool
    }
    typealias Response = Status
    let id: String
    var path: Path { "/hang-status/\(id)" }
    var query: Query { ["wait": "10"] }
}

struct Slow: Endpoint {
    typealias Response = JSONValue
    let milliseconds: Int
    var timeout: Duration?
    var path: Path { "/slow" }
    var query: Query { ["ms": String(milliseconds)] }
}

@Suite("Cancellation and timeouts")
struct CancellationTests {
    @Test("cancelling the task cancels the request: the server sees the connection closed", arguments: TransportKind.allCases)
    func cancelTask(transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            let id = UUID().uuidString
            let task = Task { try await client.send(Hang(id: id)) }
            task.cancel()
            let result = await task.result
            guard case .failure(let error as ParleyError) = result else {
                Issue.record("expected a cancelled ParleyError, got \(result)")
                return
            }
            #expect(error.kind == .cancelled)
        }
    }

    @Test("cancelling a running request closes its connection", arguments: TransportKind.allCases)
    func cancelRunning(transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            let id = UUID().uuidString
            let started = AsyncStream<Void>.makeStream()
            let task = Task { try await client.send(HangSignalling(id: id, started: started.continuation)) }
            for await _ in started.stream { break }
            task.cancel()
            await expectParleyError(.cancelled) { try await task.value }
            // The server waits on its side until it has seen the connection close.
            let status = try await client.send(HangStatus(id: id))
            #expect(status.closed)
        }
    }

    @Test("the completion handler gets the value, or cancelled when the handle is cancelled", arguments: TransportKind.allCases)
    func completionHandler(transport: TransportKind) async throws {
        try await withDemoClient(transport) { client, _ in
            let value: Result<User, ParleyError> = await withCheckedContinuation { continuation in
                client.send(GetUser(id: 1)) { continuation.resume(returning: $0) }
            }
            let user = try value.get()
            #expect(user.id == 1)

            let id = UUID().uuidString
            let started = AsyncStream<Void>.makeStream()
            let (stream, continuation) = AsyncStream<Result<Void, ParleyError>>.makeStream()
            let handle = client.send(HangSignalling(id: id, started: started.continuation)) { continuation.yield($0) }
            for await _ in started.stream { break }
            handle.cancel()
            #expect(handle.isCancelled)
            var iterator = stream.makeAsyncIterator()
            let outcome = await iterator.next()
            guard case .failure(let error) = outcome else {
                Issue.record("expected a failure, got \(String(describing: outcome))")
                return
            }
            #expect(error.kind == .cancelled)
            let status = try await client.send(HangStatus(id: id))
            #expect(status.closed)
        }
    }

    @Test("a client timeout and an endpoint timeout both fail with timeout", arguments: TransportKind.allCases)
    func timeouts(transport: TransportKind) async throws {
        try await withDemoClient(transport, configuration: .init(timeout: .milliseconds(200))) { client, _ in
            let clientLevel = await expectParleyError(.timeout) { try await client.send(Slow(milliseconds: 5_000)) }
            #expect(clientLevel?.description.contains("timeout") == true)
            // The endpoint's own timeout wins over the client's, both ways.
            _ = try await client.send(Slow(milliseconds: 300, timeout: .seconds(40)))
            await expectParleyError(.timeout) { try await client.send(Slow(milliseconds: 5_000, timeout: .milliseconds(50))) }
        }
    }
}

/// Holds the call until its task is cancelled (by a timeout), then records that it wound down and fails.
struct HeldUntilCancelled: ClientMiddleware {
    let gate: Latch
    let finished: Trail
    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        await withTaskCancellationHandler {
            await gate.wait()
        } onCancel: {
            gate.open()
        }
        finished.add("wound down")
        throw CancellationError()
    }
}

/// A one-way latch: `wait()` returns once `open()` has been called (at once if it has), ignoring cancellation.
final class Latch: Sendable {
    private let state = LockedState<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state in
                if state.isOpen { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

@Suite("Timeouts that leave nothing behind", .timeLimit(.minutes(1)))
struct StubbornTimeoutTests {
    /// Parley's deadlines are structured: the call is cancelled and awaited before the timeout is reported, so no
    /// part of it (a middleware, a transport request) outlives the call.
    @Test("a timeout cancels the call, waits for it to wind down, and names the request")
    func stubborn() async throws {
        let finished = Trail()
        let gate = Latch()
        defer { gate.open() }
        try await withDemoClient(
            .asyncHTTPClient,
            middlewares: [HeldUntilCancelled(gate: gate, finished: finished)],
            configuration: .init(timeout: .milliseconds(100))
        ) { client, _ in
            let error = await expectParleyError(.timeout) { try await client.send(GetUser(id: 1)) }
            #expect(finished.all == ["wound down"])
            #expect(error?.request?.description.hasSuffix("/users/1") == true)
        }
    }

    @Test("a body dropped at the size limit closes the connection", arguments: TransportKind.allCases)
    func droppedBodyClosesConnection(transport: TransportKind) async throws {
        try await withDemoClient(transport, configuration: .init(maxResponseBodySize: 100)) { client, _ in
            let id = UUID().uuidString
            // /hang streams forever: only closing the connection can end it.
            await expectParleyError(.bodyTooLarge) { try await client.send(Hang(id: id)) }
            let status = try await client.send(HangStatus(id: id))
            #expect(status.closed)
        }
    }
}
