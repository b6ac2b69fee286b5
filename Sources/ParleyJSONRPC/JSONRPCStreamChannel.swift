public import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
public import Parley

/// A request or notification the peer sent to us.
public struct JSONRPCIncoming: Sendable {
    /// The method name.
    public let method: String
    /// The parameters, if any.
    public let params: JSONValue?
    /// The id, for a request; `nil` for a notification.
    public let id: JSONValue?
}

/// JSON-RPC over a pair of byte streams — a child process's stdin/stdout, pipes, a socket — in either
/// framing (``JSONRPCFraming``). One channel multiplexes any number of concurrent calls, routed by id.
///
/// Both sides may send requests and notifications: the peer's requests are answered by `router` (or with
/// `-32601 Method not found` when there is none), its notifications arrive on ``incoming``. When the input
/// ends or breaks, every pending call fails at once with ``ParleyError/Kind/transport``.
public final class JSONRPCStreamChannel: JSONRPCChannel {
    private struct State {
        var waiters: [Int: CheckedContinuation<JSONRPCReply, any Error>] = [:]
        var waiterByID: [JSONRPCID: Int] = [:]
        var nextWaiter = 0
        var closedReason: String?
    }

    private let output: FileHandle
    private let framing: JSONRPCFraming
    private let router: JSONRPCRouter?
    private let state = LockedState(State())
    private let writeLock = LockedState(())
    private let incomingContinuation: AsyncStream<JSONRPCIncoming>.Continuation

    /// The peer's notifications, in arrival order (its requests go to the router).
    public let incoming: AsyncStream<JSONRPCIncoming>

    /// A channel reading messages from `input` and writing them to `output`.
    ///
    /// - Parameters:
    ///   - router: Answers the peer's requests.
    ///   - maxMessageSize: The largest message accepted from the peer (default 64 MiB).
    public init(
        input: FileHandle,
        output: FileHandle,
        framing: JSONRPCFraming,
        router: JSONRPCRouter? = nil,
        maxMessageSize: Int = 64 * 1024 * 1024
    ) {
        self.output = output
        self.framing = framing
        self.router = router
        (incoming, incomingContinuation) = AsyncStream.makeStream(of: JSONRPCIncoming.self)
        let parser = FrameParser(framing: framing, maxMessageSize: maxMessageSize)
        let thread = Thread { [weak self] in
            var parser = parser
            while true {
                let chunk = Self.read(input)
                guard let self else { return }
                guard let chunk, !chunk.isEmpty else {
                    self.close(reason: chunk == nil ? "reading from the peer failed" : "the peer closed its output")
                    return
                }
                do {
                    for message in try parser.feed(chunk) { self.dispatch(message) }
                } catch {
                    self.close(reason: "the peer sent \(error)")
                    return
                }
            }
        }
        thread.name = "parley.jsonrpc.reader"
        thread.start()
    }

    /// A blocking read of what is available; `nil` on error, empty at end of input.
    private static func read(_ handle: FileHandle) -> Data? {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { raw in
                #if canImport(Darwin)
                Darwin.read(handle.fileDescriptor, raw.baseAddress, raw.count)
                #else
                Glibc.read(handle.fileDescriptor, raw.baseAddress, raw.count)
                #endif
            }
            if count >= 0 { return Data(buffer[0..<count]) }
            if errno == EINTR { continue }
            return nil
        }
    }

    /// Sends a message; waits for the answer to `ids` when there are any.
    public func exchange(_ message: Data, ids: [JSONRPCID]) async throws(ParleyError) -> JSONRPCReply? {
        guard !ids.isEmpty else {
            try write(message)
            return nil
        }
        let waiter = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<JSONRPCReply, any Error>) in
                    let closed = state.withLock { state -> String? in
                        if let reason = state.closedReason { return reason }
                        state.waiters[waiter] = continuation
                        for id in ids { state.waiterByID[id] = waiter }
                        return nil
                    }
                    if let closed {
                        continuation.resume(throwing: ParleyError(.transport, "The JSON-RPC channel is closed: \(closed)."))
                        return
                    }
                    do {
                        try write(message)
                    } catch {
                        if let pending = remove(waiter, ids: ids) { pending.resume(throwing: error) }
                    }
                }
            } onCancel: {
                remove(waiter, ids: ids)?.resume(throwing: ParleyError(.cancelled, "The JSON-RPC call was cancelled."))
            }
        } catch {
            throw ParleyError.wrapping(error, as: .transport, "The JSON-RPC channel failed: \(error)")
        }
    }

    /// Stops waiting: every pending call fails with ``ParleyError/Kind/transport``. Closing the file handles
    /// is the caller's (or the child process's) business.
    public func close() {
        close(reason: "it was closed")
    }

    private func close(reason: String) {
        let pending = state.withLock { state -> [CheckedContinuation<JSONRPCReply, any Error>] in
            if state.closedReason == nil { state.closedReason = reason }
            defer {
                state.waiters = [:]
                state.waiterByID = [:]
            }
            return Array(state.waiters.values)
        }
        for continuation in pending {
            continuation.resume(throwing: ParleyError(.transport, "The JSON-RPC channel closed while a call waited for its answer: \(reason)."))
        }
        incomingContinuation.finish()
    }

    private func remove(_ waiter: Int, ids: [JSONRPCID]) -> CheckedContinuation<JSONRPCReply, any Error>? {
        state.withLock { state in
            for id in ids where state.waiterByID[id] == waiter { state.waiterByID[id] = nil }
            return state.waiters.removeValue(forKey: waiter)
        }
    }

    private func write(_ message: Data) throws(ParleyError) {
        let framed = framing.frame(message)
        do {
            try writeLock.withLock { _ in try output.write(contentsOf: framed) }
        } catch {
            throw ParleyError(.transport, "Writing to the JSON-RPC peer failed: \(error).", underlying: error)
        }
    }

    /// Routes one message from the peer: an answer to its waiter, a request to the router, a notification
    /// to ``incoming``.
    private func dispatch(_ message: Data) {
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: message) else {
            // Not JSON: answer as the specification says; nobody waits on it.
            try? write(JSONRPCRouter.errorResponse(.parseError(), id: .null))
            return
        }
        let first: JSONValue? =
            if case .array(let elements) = value { elements.first } else { value }
        if let first, first["method"] == nil {
            deliver(JSONRPCReply(data: message), answering: value)
            return
        }
        // A request, a notification, or a batch of them from the peer.
        if case .object(let members) = value, case .string(let method)? = members["method"], members["id"] == nil {
            incomingContinuation.yield(JSONRPCIncoming(method: method, params: members["params"], id: nil))
            return
        }
        let router = self.router ?? JSONRPCRouter()
        Task {
            if let answer = await router.handle(message) { try? self.write(answer) }
        }
    }

    private func deliver(_ reply: JSONRPCReply, answering value: JSONValue) {
        let elements: [JSONValue] =
            if case .array(let elements) = value { elements } else { [value] }
        let continuation = state.withLock { state -> CheckedContinuation<JSONRPCReply, any Error>? in
            for element in elements {
                let id: JSONRPCID? =
                    switch element["id"] {
                    case .int(let number)?: .number(number)
                    case .string(let string)?: .string(string)
                    default: nil
                    }
                guard let id, let waiter = state.waiterByID[id] else { continue }
                state.waiterByID = state.waiterByID.filter { $0.value != waiter }
                return state.waiters.removeValue(forKey: waiter)
            }
            return nil
        }
        continuation?.resume(returning: reply)
    }
}
