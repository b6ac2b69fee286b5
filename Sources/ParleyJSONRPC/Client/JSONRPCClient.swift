public import Parley
public import Tracing

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Typed JSON-RPC 2.0 calls, notifications and batches over a ``JSONRPCChannel``.
///
/// ```swift
/// let rpc = JSONRPCClient(http: client, path: "/rpc")
/// let difference = try await rpc.call(Subtract(params: [42, 23]))            // 19
/// let (sum, data) = try await rpc.batch(Sum(params: [1, 2, 4]), GetData())    // Result each, matched by id
/// try await rpc.notify(Update(params: [1, 2, 3]))
/// ```
///
/// Every failure is a ``/Parley/ParleyError``: an error object from the peer is ``Parley/ParleyError/Kind/jsonRPCError``
/// (its ``Parley/ParleyError/jsonRPCError`` holds code, message and data), an answer that breaks the protocol is
/// ``Parley/ParleyError/Kind/jsonRPCProtocol``, a result of the wrong shape is ``/Parley/ParleyError/Kind/decoding``.
public struct JSONRPCClient: Sendable {
    /// Where messages go.
    public let channel: any JSONRPCChannel
    /// Makes the ids of calls.
    public let ids: any JSONRPCIDGenerator
    /// Encodes parameters.
    public let encoder: JSONEncoder
    /// Decodes results (its strategies and user info apply).
    public let decoder: JSONDecoder
    /// The longest each call may take, counted from its start, unless the call gives its own (its `timeout`, or the
    /// total of its ``JSONRPCCallLimits``); `nil` for no limit (over HTTP, the `Client`'s timeouts still apply). On any
    /// channel: HTTP, stdio, WebSocket.
    public let timeout: Duration?
    /// What the peer is told when a call is cancelled or times out (``JSONRPCCancellation/lsp``,
    /// ``JSONRPCCancellation/mcp``); `nil` tells it nothing.
    public let cancellation: JSONRPCCancellation?
    /// When repeatable calls are sent again; `nil` never.
    public let retry: JSONRPCRetryPolicy?
    /// Traces each call and batch as a CLIENT span with OpenTelemetry's JSON-RPC attributes (`rpc.system`,
    /// `rpc.method`, `rpc.jsonrpc.request_id`, `rpc.jsonrpc.error_code` …), on every channel; over HTTP the request's
    /// span is its child. `nil` traces nothing.
    public let tracer: (any Tracer)?
    /// The cancellation notifications on their way, shared by the copies of this client.
    let notices = CancellationNotices()

    /// A client on any channel.
    public init(
        channel: any JSONRPCChannel,
        ids: any JSONRPCIDGenerator = JSONRPCSequentialIDs(),
        encoder: JSONEncoder = JSONEncoder(),
        decoder: JSONDecoder = JSONDecoder(),
        timeout: Duration? = nil,
        cancellation: JSONRPCCancellation? = nil,
        retry: JSONRPCRetryPolicy? = nil,
        tracer: (any Tracer)? = nil
    ) {
        self.channel = channel
        self.ids = ids
        self.encoder = encoder
        self.decoder = decoder
        self.timeout = timeout
        self.cancellation = cancellation
        self.retry = retry
        self.tracer = tracer
    }

    /// A client posting to `path` through `client` (its middlewares, transport and JSON coders apply).
    public init(
        http client: Client,
        path: Path = "",
        headers: Headers = [:],
        ids: any JSONRPCIDGenerator = JSONRPCSequentialIDs(),
        timeout: Duration? = nil,
        cancellation: JSONRPCCancellation? = nil,
        retry: JSONRPCRetryPolicy? = nil,
        tracer: (any Tracer)? = nil
    ) {
        self.init(
            channel: JSONRPCHTTPChannel(client: client, path: path, headers: headers),
            ids: ids,
            encoder: client.configuration.jsonEncoder,
            decoder: client.configuration.jsonDecoder,
            timeout: timeout,
            cancellation: cancellation,
            retry: retry,
            tracer: tracer
        )
    }

    /// Calls `method` and returns its result.
    ///
    /// - Parameters:
    ///   - method: The call.
    ///   - timeout: The longest the call may take, counted from its start (the retries of a repeatable call
    ///     included); `nil` for the client's ``timeout``. The same as ``call(_:limits:)`` with only a total.
    /// - Throws: ``/Parley/ParleyError/Kind/timeout`` when no answer came in time, ``/Parley/ParleyError/Kind/cancelled``
    ///   when the calling task was cancelled; either way the peer is then told (``cancellation``).
    public func call<Method: JSONRPCMethod>(_ method: Method, timeout: Duration? = nil) async throws(ParleyError) -> Method.Result
    {
        try await call(method, limits: JSONRPCCallLimits(total: timeout))
    }

    /// Calls `method` within `limits` and returns its result.
    ///
    /// A call without a progress token has nothing that restarts its idle clock: `limits.idle` counts from the send,
    /// and whichever of it and `limits.total` passes first fails the call. For an idle limit that the peer's progress
    /// restarts, call with progress (``call(_:progress:limits:)``).
    ///
    /// - Parameters:
    ///   - method: The call.
    ///   - limits: Its total (`nil`: the client's ``timeout``) and idle limit.
    /// - Throws: ``/Parley/ParleyError/Kind/timeout`` when a limit passed, its message naming which;
    ///   ``/Parley/ParleyError/Kind/cancelled`` when the calling task was cancelled; either way the peer is then told
    ///   (``cancellation``).
    public func call<Method: JSONRPCMethod>(
        _ method: Method,
        limits: JSONRPCCallLimits
    ) async throws(ParleyError) -> Method.Result {
        try await call(method, watch: JSONRPCCallWatch(limits, fallback: timeout, watchesProgress: false))
    }

    /// Calls `method` within the limits `watch` keeps (`nil`: none), sending it again as ``retry`` says while the total
    /// allows.
    func call<Method: JSONRPCMethod>(_ method: Method, watch: JSONRPCCallWatch?) async throws(ParleyError) -> Method.Result {
        guard let retry, method.isRepeatable else { return try await attempt(method, watch: watch) }
        var attempt = 1
        while true {
            do throws(ParleyError) {
                return try await self.attempt(method, watch: watch)
            } catch {
                let delay = retry.backoff.delay(beforeAttempt: attempt)
                guard attempt < retry.maxAttempts, retry.isRetryable(error), !Task.isCancelled,
                    watch?.allowsWait(delay) ?? true
                else {
                    throw error
                }
                try await Self.wait(delay)
                attempt += 1
            }
        }
    }

    /// Waits `delay` before another attempt; throws ``/Parley/ParleyError/Kind/cancelled`` when the task is cancelled.
    static func wait(_ delay: Duration) async throws(ParleyError) {
        do {
            try await Task.sleep(for: delay)
        } catch {
            throw ParleyError(.cancelled, "The JSON-RPC call was cancelled while it waited to be sent again.", underlying: error)
        }
    }

    /// One attempt of `method`, with a new id, traced.
    private func attempt<Method: JSONRPCMethod>(
        _ method: Method,
        watch: JSONRPCCallWatch?
    ) async throws(ParleyError) -> Method.Result {
        let id = ids.next()
        let name = method.methodName
        guard let span = JSONRPCSpan(tracer: tracer, method: name, id: id) else {
            return try await attempt(method, id: id, name: name, watch: watch)
        }
        return try await span.run { () async throws(ParleyError) in
            try await attempt(method, id: id, name: name, watch: watch)
        }
    }

    private func attempt<Method: JSONRPCMethod>(
        _ method: Method,
        id: JSONRPCID,
        name: String,
        watch: JSONRPCCallWatch?
    ) async throws(ParleyError) -> Method.Result {
        let message = try JSONRPCCoding.encode(RequestEnvelope(method: method, id: id), with: encoder, what: "call \(name)")
        let exchange = JSONRPCExchange(
            methods: [name],
            ids: [id],
            isRepeatable: method.isRepeatable,
            headerFields: method.headerFields
        )
        guard let reply = try await self.exchange(message, exchange, name: name, watch: watch) else {
            throw ParleyError(.jsonRPCProtocol, "The channel returned no answer to the JSON-RPC call \(name) (id \(id)).")
        }
        let decoders = ResultDecoders([id: ResultDecoders.decoding(Method.Result.self)])
        let outcome: Result<any Sendable, ParleyError>
        switch try JSONRPCCoding.parse(reply, decoders: decoders, like: decoder) {
        case .single(let element) where element.id == id:
            outcome = JSONRPCCoding.outcome(element, name: name, id: id, reply: reply)
        case .single(let element):
            var failure = JSONRPCCoding.stray(element, reply: reply)
            if element.id != nil {
                failure.message =
                    "The JSON-RPC call \(name) had the id \(id), but the answer has the id \(element.id?.description ?? "null")."
            }
            outcome = .failure(failure)
        case .batch:
            var failure = ParleyError(
                .jsonRPCProtocol,
                "The JSON-RPC call \(name) (id \(id)) was answered with an array, which answers a batch, not a single call."
            )
            failure = failure.attaching(response: reply.head, body: reply.data)
            outcome = .failure(failure)
        }
        switch outcome {
        case .success(let value):
            guard let typed = value as? Method.Result else { throw Self.typeConfusion(name) }
            return typed
        case .failure(let failure):
            throw failure
        }
    }

    /// Sends `message`, the call `name` with `id`, and waits for its answer within the limits `watch` keeps (`nil`:
    /// none); tells the peer when the call fails cancelled or out of time.
    private func exchange(
        _ message: Data,
        _ exchange: JSONRPCExchange,
        name: String,
        watch: JSONRPCCallWatch?
    ) async throws(ParleyError)
        -> JSONRPCReply?
    {
        let id = exchange.ids.first ?? .number(0)
        do throws(ParleyError) {
            guard let watch else { return try await channel.exchange(message, describing: exchange) }
            watch.restart()
            do {
                return try await Deadline.run(
                    watchedBy: { await watch.watchdog() },
                    expired: { watch.expiry(name: name, id: id) },
                    { [channel] in try await channel.exchange(message, describing: exchange) }
                )
            } catch {
                throw ParleyError.wrapping(error, as: .transport, "The JSON-RPC channel failed: \(error)")
            }
        } catch {
            switch error.kind {
            case .timeout: tellPeer(id, reason: watch?.cancellationReason ?? "timed out")
            case .cancelled: tellPeer(id, reason: "cancelled by the client")
            default: break
            }
            throw error
        }
    }

    /// How long a cancellation notification may take to be written before it is given up.
    static let cancellationLimit: Duration = .seconds(10)

    /// Sends the ``cancellation`` notification for the call `id`, without waiting for it.
    private func tellPeer(_ id: JSONRPCID, reason: String) {
        guard let cancellation else { return }
        let (method, params) = cancellation.notification(id, reason)
        // Not a child of the caller's task, which may be cancelled: the notification must still go out. Bounded, so
        // that a peer that stopped reading leaves no task waiting behind each cancelled call.
        notices.add { [self] in
            _ = try? await Deadline.run(
                within: Self.cancellationLimit,
                expired: { ParleyError(.timeout, "The JSON-RPC cancellation notification \(method) could not be sent in time.") },
                { try await notify(JSONRPCDynamicMethod(method, params: params)) }
            )
        }
    }

    /// Waits until the cancellation notifications of calls that already failed have been sent (or given up after
    /// 10 s): a program about to exit calls it so that the peer still hears of a call it timed out.
    public func waitForCancellationNotices() async {
        await notices.waitForAll()
    }

    /// Sends `method` as a notification: no id, and no answer is expected.
    public func notify<Method: JSONRPCMethod>(_ method: Method) async throws(ParleyError) {
        let message = try JSONRPCCoding.encode(
            RequestEnvelope(method: method, id: nil),
            with: encoder,
            what: "notification \(method.methodName)"
        )
        _ = try await channel.exchange(
            message,
            describing: JSONRPCExchange(
                methods: [method.methodName],
                ids: [],
                isRepeatable: false,
                headerFields: method.headerFields
            )
        )
    }

    /// Sends the calls as one batch and returns each call's result, matched by id whatever order the server
    /// answers in. The batch itself throws only when it could not be sent or its answer could not be read
    /// at all; each element's own failure is in its `Result`.
    public func batch<each Method: JSONRPCMethod>(
        _ methods: repeat each Method
    ) async throws(ParleyError) -> (repeat Result<(each Method).Result, ParleyError>) {
        var entries: [JSONRPCCoding.Entry] = []
        for method in repeat each methods {
            entries.append(.call(method))
        }
        let results = try await send(entries)
        var index = 0
        func take<M: JSONRPCMethod>(_ method: M) -> Result<M.Result, ParleyError> {
            defer { index += 1 }
            return results.outcomes[index].flatMap { value in
                guard let typed = value as? M.Result else { return .failure(Self.typeConfusion(method.methodName)) }
                return .success(typed)
            }
        }
        return (repeat take(each methods))
    }

    /// Like ``batch(_:)``, but returns the results themselves and throws the first element's failure.
    public func batchValues<each Method: JSONRPCMethod>(
        _ methods: repeat each Method
    ) async throws(ParleyError) -> (repeat (each Method).Result) {
        let results = try await batch(repeat each methods)
        return (repeat try (each results).get())
    }

    /// Sends a batch built with ``JSONRPCBatch``: calls and notifications of any number, known at run time.
    public func send(_ batch: JSONRPCBatch) async throws(ParleyError) -> JSONRPCBatch.Results {
        let results = try await send(batch.entries)
        return JSONRPCBatch.Results(
            outcomes: results.outcomes,
            unmatched: results.unmatched,
            unmatchedCount: results.unmatchedCount
        )
    }

    /// Sends entries as one batch array; notifications get no slot in `outcomes`' meaning (their slot stays a
    /// success of `()`), calls get theirs. Sent once: `send(_:)` retries.
    func sendOnce(
        _ entries: [JSONRPCCoding.Entry]
    ) async throws(ParleyError) -> (outcomes: [Result<any Sendable, ParleyError>], unmatched: [ParleyError], unmatchedCount: Int)
    {
        guard !entries.isEmpty else {
            throw ParleyError(
                .invalidRequest,
                "A JSON-RPC batch needs at least one call or notification: the specification makes an empty batch an "
                    + "invalid request. Nothing was sent."
            )
        }
        var envelopes: [AnyRequestEnvelope] = []
        envelopes.reserveCapacity(entries.count)
        var calls: [(id: JSONRPCID, name: String)] = []
        var slots: [Int?] = []
        var decoders: [JSONRPCID: ResultDecoders.Decode] = [:]
        for entry in entries {
            guard let decode = entry.decode else {
                envelopes.append(entry.envelope(nil))
                slots.append(nil)
                continue
            }
            let id = ids.next()
            guard decoders.updateValue(decode, forKey: id) == nil else {
                throw ParleyError(
                    .invalidRequest,
                    "The id generator gave the id \(id) twice in one batch, so the answers could not be told apart. Nothing was sent."
                )
            }
            envelopes.append(entry.envelope(id))
            slots.append(calls.count)
            calls.append((id, entry.name))
        }
        let message = try JSONRPCCoding.encode(envelopes, with: encoder, what: "batch")
        let exchange = JSONRPCExchange(
            methods: entries.map(\.name),
            ids: calls.map(\.id),
            isRepeatable: entries.allSatisfy { $0.decode == nil || $0.isRepeatable }
        )
        let reply: JSONRPCReply?
        if let span = JSONRPCSpan(tracer: tracer, batch: exchange) {
            reply = try await span.run { () async throws(ParleyError) in try await channel.exchange(message, describing: exchange)
            }
        } else {
            reply = try await channel.exchange(message, describing: exchange)
        }
        guard !calls.isEmpty else { return (slots.map { _ in .success(()) }, [], 0) }
        guard let reply else {
            throw ParleyError(.jsonRPCProtocol, "The channel returned no answer to a batch of \(calls.count) calls.")
        }
        let parsed = try JSONRPCCoding.parse(reply, decoders: ResultDecoders(decoders), like: decoder)
        let matched = JSONRPCCoding.match(parsed, calls: calls, reply: reply)
        let outcomes = slots.map { slot -> Result<any Sendable, ParleyError> in
            guard let slot else { return .success(()) }
            return matched.outcomes[slot]
        }
        return (outcomes, matched.unmatched, matched.unmatchedCount)
    }

    static func typeConfusion(_ name: String) -> ParleyError {
        ParleyError(.decoding, "The result of the JSON-RPC call \(name) was decoded as another type than the call's Result.")
    }
}

/// A batch whose calls and notifications are known only at run time.
///
/// ```swift
/// var batch = JSONRPCBatch()
/// let sum = batch.call(Sum(params: [1, 2, 4]))
/// batch.notify(NotifyHello(params: [7]))
/// let results = try await rpc.send(batch)
/// let seven = try results[sum].get()
/// ```
public struct JSONRPCBatch: Sendable {
    @usableFromInline var entries: [JSONRPCCoding.Entry] = []

    /// An empty batch (sending it fails: add at least one element).
    public init() {}

    /// Where a call's result will be in ``Results``.
    public struct Slot<Value: Sendable>: Sendable {
        let index: Int

        @usableFromInline
        init(index: Int) {
            self.index = index
        }
    }

    /// Adds a call.
    @inlinable
    public mutating func call<Method: JSONRPCMethod>(_ method: Method) -> Slot<Method.Result> {
        entries.append(.call(method))
        return Slot(index: entries.count - 1)
    }

    /// Adds a notification (it gets no answer and no slot).
    @inlinable
    public mutating func notify<Method: JSONRPCMethod>(_ method: Method) {
        entries.append(.notification(method))
    }

    /// The number of calls and notifications.
    public var count: Int { entries.count }
    /// Whether the batch has nothing in it.
    public var isEmpty: Bool { entries.isEmpty }

    /// The results of a sent batch.
    public struct Results: Sendable {
        let outcomes: [Result<any Sendable, ParleyError>]
        /// Answers that match no call of the batch: ids nobody asked for, or errors with a null id (the server
        /// could not read an element). Only the first 16 are kept, so that a server answering with thousands of
        /// them cannot make the results grow with it; ``unmatchedCount`` says how many there were.
        public let unmatched: [ParleyError]
        /// How many answers matched no call, including those ``unmatched`` does not keep.
        public let unmatchedCount: Int

        /// The result of the call at `slot`.
        public subscript<Value>(slot: Slot<Value>) -> Result<Value, ParleyError> {
            outcomes[slot.index].flatMap { value in
                guard let typed = value as? Value else { return .failure(JSONRPCClient.typeConfusion("at slot \(slot.index)")) }
                return .success(typed)
            }
        }
    }
}
