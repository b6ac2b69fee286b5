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
/// are batches already go as they are, and so does a call with header fields of its own
/// (``JSONRPCMethod/headerFields``), which one POST cannot carry for a single call of a batch. A batch is repeatable only when all its calls are. The answer is read once
/// for all its calls, with the checks of a `JSONRPCClient` batch (an id answered twice is a
/// `jsonRPCProtocol` failure of its call). A caller that stops waiting (cancelled, timed
/// out) returns at once: a batch that has not left goes without it, one in flight goes on for the others, and is
/// cancelled once nobody waits for it.
public final class JSONRPCBatchingChannel: JSONRPCChannel {
    /// The channel the batches go through.
    public let base: any JSONRPCChannel
    /// How long the first message of a batch waits for others.
    public let window: Duration
    /// The most messages in one batch.
    public let maxBatchSize: Int

    private let state: LockedState<JSONRPCBatchingState>
    /// The windows' timers and the batches being sent, as children of one task group.
    private let tasks = TaskLoop()

    /// Batches messages to `base`: each batch waits at most `window` after its first message, and holds at most
    /// `maxBatchSize` messages.
    public init(_ base: any JSONRPCChannel, window: Duration = .milliseconds(2), maxBatchSize: Int = 100) {
        self.base = base
        self.window = window
        self.maxBatchSize = max(maxBatchSize, 1)
        state = LockedState(JSONRPCBatchingState(maxBatchSize: maxBatchSize))
    }

    /// The base channel's: batching groups what is sent, and the peer's notifications still arrive through `base`.
    public func watch(_ matcher: JSONRPCSubscriptionMatcher, key: JSONValue) throws(ParleyError) -> JSONRPCSubscription? {
        try base.watch(matcher, key: key)
    }

    /// The base channel's push channel, if it has one: a client of a batching channel over a WebSocket or stdio
    /// reaches the peer's notifications.
    public var pushChannel: (any JSONRPCPushChannel)? { base.pushChannel }

    /// ``exchange(_:describing:)`` with the ids alone.
    public func exchange(_ message: Data, ids: [JSONRPCID]) async throws(ParleyError) -> JSONRPCReply? {
        try await exchange(message, describing: JSONRPCExchange(methods: [], ids: ids, isRepeatable: false))
    }

    /// Queues the message for the next batch and waits for its answer. A caller that stops waiting (cancelled, out
    /// of time) returns at once, whether its batch has left or not; a batch nobody waits for any more is cancelled.
    public func exchange(_ message: Data, describing exchange: JSONRPCExchange) async throws(ParleyError) -> JSONRPCReply? {
        // Each waiting caller keeps the async frames of its calls until its answer comes. So the answer is a `Result`
        // (from a non-throwing continuation), thrown once, here: the frames kept are small, and the failure shared by
        // a batch's calls reaches each as it is, neither boxed nor described again.
        let answer: Result<JSONRPCReply?, ParleyError>
        // A message with header fields of its own (``JSONRPCMethod/headerFields``) goes alone: one POST carries one set
        // of header fields, and another call's must be neither added to it nor lost.
        if JSONRPCFrame.isBatch(message) || !exchange.headerFields.isEmpty {
            answer = await pass(message, exchange)
        } else {
            let key = state.withLock { $0.number() }
            answer = await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: JSONRPCBatchingState.Continuation) in
                    queue(JSONRPCBatchingState.Queued(key: key, message: message, exchange: exchange, continuation: continuation))
                }
            } onCancel: {
                leave(key)
            }
        }
        return try answer.get()
    }

    /// A message that is a batch already, or one with header fields of its own, sent as it is.
    private func pass(_ message: Data, _ exchange: JSONRPCExchange) async -> Result<JSONRPCReply?, ParleyError> {
        do throws(ParleyError) {
            return .success(try await base.exchange(message, describing: exchange))
        } catch {
            return .failure(error)
        }
    }

    /// Queues a caller's message: it waits, opens a window, or fills a batch, which leaves.
    private func queue(_ queued: JSONRPCBatchingState.Queued) {
        switch state.withLock({ $0.arrive(queued, isCancelled: Task.isCancelled) }) {
        case .wait: break
        case .cancelled: queued.continuation.resume(returning: .failure(Self.cancellation))
        case .openWindow(let id): startWindow(id)
        case .send(let batch, let timer):
            timer?.cancel()
            start(batch)
        }
    }

    /// The caller `key` stops waiting: it leaves its batch (or the queue), and returns cancelled.
    private func leave(_ key: Int) {
        let leaving = state.withLock { $0.leave(key) }
        leaving.cancel?.cancel()
        leaving.continuation?.resume(returning: .failure(Self.cancellation))
    }

    private static let cancellation = ParleyError(
        .cancelled,
        "The JSON-RPC call was cancelled (or ran out of time) while it waited for its batch's answer."
    )

    /// Starts the timer of window `id` (a child of the channel's task group), which sends the window's batch when it
    /// ends.
    private func startWindow(_ id: Int) {
        let window = self.window
        let timer = tasks.run { [weak self] in
            guard (try? await Task.sleep(for: window)) != nil, let self else { return }
            if let batch = state.withLock({ $0.windowEnded(id) }) { start(batch) }
        }
        state.withLock { $0.windowStarted(id, timer: timer) }?.cancel()
    }

    /// Sends `batch` as a child of the channel's task group, which the callers' cancellation cancels once none of
    /// them waits.
    private func start(_ batch: JSONRPCBatchingState.Batch) {
        let task = tasks.run { [self] in await send(batch) }
        state.withLock { $0.batchStarted(batch.id, task: task) }?.cancel()
    }

    /// Sends the batch (a lone message as it is), then hands each caller still waiting its answer.
    private func send(_ batch: JSONRPCBatchingState.Batch) async {
        let answers: [Int: Result<JSONRPCReply?, ParleyError>]
        if batch.messages.count == 1, let only = batch.messages.first {
            do throws(ParleyError) {
                answers = [only.key: .success(try await base.exchange(only.message, describing: only.exchange))]
            } catch {
                answers = [only.key: .failure(error)]
            }
        } else {
            var message = Data("[".utf8)
            for (index, queued) in batch.messages.enumerated() {
                if index > 0 { message.append(UInt8(ascii: ",")) }
                message.append(queued.message)
            }
            message.append(UInt8(ascii: "]"))
            let exchange = JSONRPCExchange(
                methods: batch.messages.flatMap(\.exchange.methods),
                ids: batch.messages.flatMap(\.exchange.ids),
                isRepeatable: batch.messages.allSatisfy { $0.exchange.ids.isEmpty || $0.exchange.isRepeatable }
            )
            do throws(ParleyError) {
                let reply = try await base.exchange(message, describing: exchange)
                answers = Self.split(reply, among: batch.messages)
            } catch {
                answers = Dictionary(uniqueKeysWithValues: batch.messages.map { ($0.key, .failure(error)) })
            }
        }
        let waiting = state.withLock { $0.finished(batch.id) }
        for (key, continuation) in waiting {
            continuation.resume(returning: answers[key] ?? .failure(Self.cancellation))
        }
    }

    /// Each message's part of the batch's answer, by key, read once: an element's bytes untouched for the call
    /// whose id it has (its caller decodes them), or the call's failure (no answer, an id answered twice, or one
    /// error object for the whole batch, decoded once and shared), with the checks of a `JSONRPCClient` batch.
    private static func split(
        _ reply: JSONRPCReply?,
        among messages: [JSONRPCBatchingState.Queued]
    ) -> [Int: Result<JSONRPCReply?, ParleyError>] {
        var answers: [Int: Result<JSONRPCReply?, ParleyError>] = [:]
        var calls: [(key: Int, id: JSONRPCID, name: String)] = []
        for queued in messages {
            if let id = queued.exchange.ids.first {
                calls.append((queued.key, id, queued.exchange.methods.first ?? "(unnamed)"))
            } else {
                answers[queued.key] = .success(nil)  // a notification: sent
            }
        }
        guard !calls.isEmpty else { return answers }
        guard let reply else {
            let failure = ParleyError(.jsonRPCProtocol, "The channel returned no answer to a batch of \(calls.count) calls.")
            for call in calls { answers[call.key] = .failure(failure) }
            return answers
        }
        // An array's elements, each decoded once (ids, error objects; no result is decoded here); anything else
        // (one object, or bytes that are not JSON) read as a whole, once.
        var pieces = JSONRPCFrame.elements(reply.data)
        var parsed: Reply?
        if let elements = pieces {
            let decoder = JSONDecoder()
            parsed = try? Reply.batch(elements.map { try decoder.decode(ResponseElement.self, from: $0) })
        }
        if parsed == nil {
            pieces = nil
            do throws(ParleyError) {
                parsed = try JSONRPCCoding.parse(reply, decoders: ResultDecoders([:]), like: JSONDecoder())
            } catch {
                for call in calls { answers[call.key] = .failure(error) }
                return answers
            }
        }
        guard let parsed else { return answers }
        let located = JSONRPCCoding.locate(parsed, calls: calls.map { ($0.id, $0.name) }, reply: reply)
        for (call, position) in zip(calls, located.positions) {
            answers[call.key] = position.map { position -> JSONRPCReply? in
                guard let pieces else { return reply }
                return JSONRPCReply(data: pieces[position], head: reply.head)
            }
        }
        return answers
    }
}
