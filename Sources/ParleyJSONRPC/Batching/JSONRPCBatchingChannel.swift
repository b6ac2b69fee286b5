public import Parley

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Sends the calls made within a short window as one batch (opt-in): a channel around another, most useful around
/// an ``JSONRPCHTTPChannel`` to a node that charges or limits per request.
///
/// ```swift
/// let batching = JSONRPCBatchingChannel(JSONRPCHTTPChannel(client: client, path: "/rpc"), window: .milliseconds(5))
/// let rpc = JSONRPCClient(channel: batching)
/// async let a = rpc.call(Sum(params: [1, 2]))
/// async let b = rpc.call(Subtract(params: [42, 23]))
/// print(try await a, try await b)      // one POST with a batch of two calls
/// ```
///
/// The first message of a batch waits at most `window` for others; a batch of `maxBatchSize` goes at once. Each
/// call's result and error are what they would be alone: the answer is split by id, bytes untouched. Messages that
/// are batches already go as they are. A batch is repeatable only when all its calls are. A caller that stops
/// waiting (cancelled, timed out) before its batch leaves is taken out of it.
public final class JSONRPCBatchingChannel: JSONRPCChannel {
    /// The channel the batches go through.
    public let base: any JSONRPCChannel
    /// How long the first message of a batch waits for others.
    public let window: Duration
    /// The most messages in one batch.
    public let maxBatchSize: Int

    private struct Waiter {
        let message: Data
        let exchange: JSONRPCExchange
        var continuation: CheckedContinuation<JSONRPCReply?, any Error>?
    }

    private struct State {
        var pending: [Int: Waiter] = [:]
        var order: [Int] = []
        var next = 0
        var timer: Task<Void, Never>?
    }

    private let state = LockedState(State())

    /// Batches messages to `base`: each batch waits at most `window` after its first message, and holds at most
    /// `maxBatchSize` messages.
    public init(_ base: any JSONRPCChannel, window: Duration = .milliseconds(2), maxBatchSize: Int = 100) {
        self.base = base
        self.window = window
        self.maxBatchSize = max(maxBatchSize, 1)
    }

    /// ``exchange(_:describing:)`` with the ids alone.
    public func exchange(_ message: Data, ids: [JSONRPCID]) async throws(ParleyError) -> JSONRPCReply? {
        try await exchange(message, describing: JSONRPCExchange(methods: [], ids: ids, isRepeatable: false))
    }

    /// Queues the message for the next batch and waits for its answer.
    public func exchange(_ message: Data, describing exchange: JSONRPCExchange) async throws(ParleyError) -> JSONRPCReply? {
        if message.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "[") {
            return try await base.exchange(message, describing: exchange)
        }
        let key = state.withLock { state -> Int in
            state.next += 1
            state.pending[state.next] = Waiter(message: message, exchange: exchange)
            state.order.append(state.next)
            return state.next
        }
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<JSONRPCReply?, any Error>) in
                    let flushNow = state.withLock { state -> Bool? in
                        guard state.pending[key] != nil else { return nil }  // cancelled already
                        state.pending[key]?.continuation = continuation
                        if state.order.count >= maxBatchSize { return true }
                        if state.timer == nil {
                            let window = self.window
                            state.timer = Task { [weak self] in
                                try? await Task.sleep(for: window)
                                self?.flush(fromTimer: true)
                            }
                        }
                        return false
                    }
                    switch flushNow {
                    case nil:
                        continuation.resume(
                            throwing: ParleyError(.cancelled, "The JSON-RPC call was cancelled before its batch was sent.")
                        )
                    case true?: flush(fromTimer: false)
                    case false?: break
                    }
                }
            } onCancel: {
                let continuation = state.withLock { state -> CheckedContinuation<JSONRPCReply?, any Error>? in
                    state.order.removeAll { $0 == key }
                    return state.pending.removeValue(forKey: key)?.continuation
                }
                continuation?.resume(
                    throwing: ParleyError(.cancelled, "The JSON-RPC call was cancelled before its batch was sent.")
                )
            }
        } catch {
            throw ParleyError.wrapping(error, as: .transport, "The JSON-RPC batch failed: \(error)")
        }
    }

    /// Takes the queued messages that are ready (at most ``maxBatchSize``) and sends them as one batch.
    private func flush(fromTimer: Bool) {
        let batch = state.withLock { state -> [Waiter] in
            if fromTimer { state.timer = nil }
            var taken: [Waiter] = []
            var kept: [Int] = []
            for key in state.order {
                if taken.count < maxBatchSize, let waiter = state.pending[key], waiter.continuation != nil {
                    taken.append(waiter)
                    state.pending[key] = nil
                } else {
                    kept.append(key)
                }
            }
            state.order = kept
            if !fromTimer, kept.isEmpty {
                state.timer?.cancel()
                state.timer = nil
            }
            return taken
        }
        guard !batch.isEmpty else { return }
        Task { await send(batch) }
    }

    private func send(_ batch: [Waiter]) async {
        if batch.count == 1, let only = batch.first {
            do throws(ParleyError) {
                only.continuation?.resume(returning: try await base.exchange(only.message, describing: only.exchange))
            } catch {
                only.continuation?.resume(throwing: error)
            }
            return
        }
        var message = Data("[".utf8)
        for (index, waiter) in batch.enumerated() {
            if index > 0 { message.append(UInt8(ascii: ",")) }
            message.append(waiter.message)
        }
        message.append(UInt8(ascii: "]"))
        let exchange = JSONRPCExchange(
            methods: batch.flatMap(\.exchange.methods),
            ids: batch.flatMap(\.exchange.ids),
            isRepeatable: batch.allSatisfy { $0.exchange.ids.isEmpty || $0.exchange.isRepeatable }
        )
        let reply: JSONRPCReply?
        do throws(ParleyError) {
            reply = try await base.exchange(message, describing: exchange)
        } catch {
            for waiter in batch { waiter.continuation?.resume(throwing: error) }
            return
        }
        let elements = reply.flatMap { JSONArrayElements.split($0.data) }
        var byID: [JSONRPCID: Data] = [:]
        for element in elements ?? [] {
            if let id = (try? JSONDecoder().decode(IDPeek.self, from: element))?.id, byID[id] == nil { byID[id] = element }
        }
        for waiter in batch {
            guard let first = waiter.exchange.ids.first else {
                waiter.continuation?.resume(returning: nil)
                continue
            }
            guard let reply else {
                waiter.continuation?.resume(
                    throwing: ParleyError(
                        .jsonRPCProtocol,
                        "The channel returned no answer to a batch of \(exchange.ids.count) calls."
                    )
                )
                continue
            }
            if let element = byID[first] {
                waiter.continuation?.resume(returning: JSONRPCReply(data: element, head: reply.head))
            } else if elements == nil {
                // One answer for the whole batch (a server that refused it): each call reads it.
                waiter.continuation?.resume(returning: reply)
            } else {
                var error = ParleyError(
                    .jsonRPCProtocol,
                    "The answer to the batch of \(batch.count) messages has no element with the id \(first); every call that has "
                        + "an id gets an answer."
                )
                error.response = reply.head
                error.body = reply.data.prefix(ParleyError.excerptLimit)
                waiter.continuation?.resume(throwing: error)
            }
        }
    }

    private struct IDPeek: Decodable {
        var id: JSONRPCID?
    }
}
