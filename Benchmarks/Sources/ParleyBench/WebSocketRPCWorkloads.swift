import Foundation
import Logging
import Parley
import ParleyJSONRPC
import ParleyJSONRPCWebSocket
import Synchronization
import WSClient

/// What `echo` sends and gets back unchanged.
struct EchoParams: Codable, Sendable, Equatable {
    let n: Int
    let text: String
}

struct EchoCall: JSONRPCMethod {
    typealias Result = EchoParams
    static let name = "echo"
    let params: EchoParams
}

/// One burst: 1,000 `echo` calls at once on one connection (a task group), each result checked.
enum EchoBurst {
    static let size = 1_000
    /// Plain ASCII, so the hand-written baseline can put it in its request text without escaping.
    static let text = "one of a thousand calls in flight"

    static func run(_ call: @escaping @Sendable (EchoParams) async throws -> EchoParams) async throws {
        try await withThrowingDiscardingTaskGroup { group in
            for n in 0..<size {
                group.addTask {
                    let params = EchoParams(n: n, text: text)
                    guard try await call(params) == params else { throw BenchError.mismatch("echo \(n)") }
                }
            }
        }
    }
}

/// The code a user would write without Parley: JSON-RPC over one `WSClient` WebSocket by hand. The request
/// text is built by interpolation; a read loop decodes each answer with `JSONDecoder` and resumes the caller
/// waiting for its id (an answer that arrives before its caller waits is kept until it does).
final class RawWebSocketRPC: Sendable {
    private struct State {
        var writer: WebSocketOutboundWriter?
        var waiting: [Int: CheckedContinuation<RawEchoResponse, any Error>] = [:]
        var early: [Int: RawEchoResponse] = [:]
        var nextID = 0
        var closed = false
    }

    private let state = Mutex(State())

    /// Opens the WebSocket at `url` and returns once it is open; its read loop runs until it closes.
    static func connect(to url: String) async throws -> RawWebSocketRPC {
        let connection = RawWebSocketRPC()
        let (opened, openedContinuation) = AsyncStream.makeStream(of: Bool.self)
        Task {
            do {
                try await WebSocketClient.connect(url: url, logger: Logger(label: "bench.raw-websocket")) {
                    inbound,
                    outbound,
                    _ in
                    connection.state.withLock { $0.writer = outbound }
                    openedContinuation.yield(true)
                    let decoder = JSONDecoder()
                    for try await message in inbound.messages(maxSize: 16 * 1024 * 1024) {
                        guard case .text(let text) = message else { continue }
                        connection.deliver(try decoder.decode(RawEchoResponse.self, from: Data(text.utf8)))
                    }
                }
            } catch {
                FileHandle.standardError.write(Data("raw WebSocket: \(error)\n".utf8))
            }
            openedContinuation.finish()
            connection.failAll()
        }
        for await _ in opened { return connection }
        throw BenchError.usage("the WebSocket \(url) did not open")
    }

    /// One `echo` call: written, then waited for by id.
    func echo(_ params: EchoParams) async throws -> EchoParams {
        let (id, writer) = try state.withLock { state throws -> (Int, WebSocketOutboundWriter) in
            guard !state.closed, let writer = state.writer else { throw BenchError.closed }
            state.nextID += 1
            return (state.nextID, writer)
        }
        try await writer.write(
            .text(#"{"jsonrpc":"2.0","method":"echo","params":{"n":\#(params.n),"text":"\#(params.text)"},"id":\#(id)}"#)
        )
        let response = try await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<RawEchoResponse, any Error>) in
            let ready = state.withLock { state -> Result<RawEchoResponse, BenchError>? in
                if let answer = state.early.removeValue(forKey: id) { return .success(answer) }
                if state.closed { return .failure(.closed) }
                state.waiting[id] = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready.mapError { $0 as any Error }) }
        }
        guard response.jsonrpc == "2.0", response.error == nil, let result = response.result else {
            throw BenchError.mismatch("echo \(id): \(response)")
        }
        return result
    }

    func close() async {
        let writer = state.withLock { $0.writer }
        try? await writer?.close(.normalClosure, reason: nil)
    }

    private func deliver(_ response: RawEchoResponse) {
        guard let id = response.id else { return }
        let continuation = state.withLock { state -> CheckedContinuation<RawEchoResponse, any Error>? in
            if let continuation = state.waiting.removeValue(forKey: id) { return continuation }
            state.early[id] = response
            return nil
        }
        continuation?.resume(returning: response)
    }

    private func failAll() {
        let pending = state.withLock { state -> [CheckedContinuation<RawEchoResponse, any Error>] in
            state.closed = true
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        for continuation in pending { continuation.resume(throwing: BenchError.closed) }
    }
}

struct RawEchoResponse: Decodable, Sendable {
    struct ErrorObject: Decodable, Sendable {
        let code: Int
        let message: String
    }
    let jsonrpc: String
    let result: EchoParams?
    let error: ErrorObject?
    let id: Int?
}
