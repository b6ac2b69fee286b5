public import OpenAPIRuntime

/// A response body as it arrives: an `AsyncSequence` of byte chunks that throws ``ParleyError``.
///
/// Chunks are pulled from the connection only as you ask for them, so a slow reader slows the server down
/// instead of making the client buffer the body. Stopping early (leaving the loop, cancelling the task) closes the
/// connection. A body can be read once. ``lines(maxLineLength:)`` and ``jsonLines(of:decoder:maxLineLength:)``
/// split it into text lines or decode newline-delimited JSON.
public struct ByteStream: AsyncSequence, Sendable {
    /// A chunk of bytes, as the transport delivered it.
    public typealias Element = ArraySlice<UInt8>
    /// Failures are ``ParleyError``s: ``ParleyError/Kind/transport`` when the body is cut off,
    /// ``ParleyError/Kind/cancelled`` when the reading task is cancelled.
    public typealias Failure = ParleyError

    let body: HTTPBody?
    /// What to call the body in errors ("the response of GetLog").
    let subject: String
    /// The longest wait for a chunk (``Client/Configuration/streamIdleTimeout``); `nil` for no limit.
    let idleTimeout: Duration?

    /// A stream over `body` (empty when `nil`), without a limit on the wait for a chunk.
    public init(_ body: HTTPBody?) {
        self.init(body, subject: "the response")
    }

    init(_ body: HTTPBody?, subject: String, idleTimeout: Duration? = nil) {
        self.body = body
        self.subject = subject
        self.idleTimeout = idleTimeout
    }

    /// The length the server declared (`Content-Length`), if any.
    public var declaredLength: Int64? {
        guard case .known(let count) = body?.length else { return nil }
        return count
    }

    /// An iterator over the body's chunks.
    public func makeAsyncIterator() -> Iterator {
        if let idleTimeout, let body {
            return Iterator(base: nil, timed: IdleBoundedReader(body: body, idleTimeout: idleTimeout), subject: subject)
        }
        return Iterator(base: body?.makeAsyncIterator(), timed: nil, subject: subject)
    }

    /// Hands each chunk in order to `handle`, which runs where the chunks are read: for a stream with an idle limit,
    /// in one child task whose every wait is timed by a watchdog child (``Deadline/run(watchedBy:expired:_:)`` with
    /// ``Deadline/watch(idle:check:)``: a task group per stream), so a consumer
    /// that is Parley's own loop (a download writing its file) pays no task switch per chunk. Throws what
    /// `handle` throws, or the errors ``Iterator/next()`` would.
    func forEachChunk(_ handle: @escaping @Sendable (ArraySlice<UInt8>) throws(ParleyError) -> Void) async throws(ParleyError) {
        guard let idleTimeout, let body else {
            var chunks = makeAsyncIterator()
            while let chunk = try await chunks.next() { try handle(chunk) }
            return
        }
        let subject = self.subject
        let waits = LockedState<(since: ContinuousClock.Instant?, received: Int64, expired: Bool)>((nil, 0, false))
        do {
            try await Deadline.run(
                watchedBy: {
                    await Deadline.watch(idle: idleTimeout) { now in
                        waits.withLock { waits in
                            let next = Deadline.nextLook(since: waits.since, idle: idleTimeout, now: now)
                            if next == nil { waits.expired = true }
                            return next
                        }
                    }
                },
                expired: { IdleBoundedReader.Expired() }
            ) {
                var chunks = Iterator(base: body.makeAsyncIterator(), timed: nil, subject: subject)
                while true {
                    waits.withLock { $0.since = .now }
                    guard let chunk = try await chunks.next() else { break }
                    waits.withLock {
                        $0.since = nil
                        $0.received += Int64(chunk.count)
                    }
                    try handle(chunk)
                }
            }
        } catch {
            let (expired, received) = waits.withLock { ($0.expired, $0.received) }
            if expired {
                throw ByteStream.idleExpired(subject: subject, idleTimeout: idleTimeout, received: received)
            }
            if let error = error as? ParleyError { throw error }
            throw ParleyError(.cancelled, "Reading \(subject) was cancelled.", underlying: error)
        }
    }

    /// The failure of a wait for a chunk longer than `idleTimeout`.
    static func idleExpired(subject: String, idleTimeout: Duration, received: Int64) -> ParleyError {
        ParleyError(
            .timeout,
            "No bytes of \(subject) arrived for \(idleTimeout), after \(received) bytes "
                + "(Client.Configuration.streamIdleTimeout); raise it if the server legitimately pauses "
                + "this long, or set it to nil to wait without limit."
        )
    }

    /// Reads the chunks in order.
    public struct Iterator: AsyncIteratorProtocol {
        var base: HTTPBody.AsyncIterator?
        /// Instead of `base` when the wait for a chunk is limited.
        var timed: IdleBoundedReader?
        let subject: String
        var received: Int64 = 0

        /// The next chunk, or `nil` at the end of the body.
        public mutating func next() async throws(ParleyError) -> ArraySlice<UInt8>? {
            try await next(isolation: nil)
        }

        /// The next chunk, or `nil` at the end of the body.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(ParleyError) -> ArraySlice<UInt8>? {
            guard base != nil || timed != nil else { return nil }
            do {
                let next: ArraySlice<UInt8>?
                if let timed {
                    next = try await timed.next()
                } else {
                    next = try await base?.next(isolation: actor)
                }
                guard let chunk = next else {
                    base = nil
                    timed = nil
                    return nil
                }
                received += Int64(chunk.count)
                return chunk
            } catch is IdleBoundedReader.Expired {
                let idleTimeout = timed?.idleTimeout ?? .zero
                base = nil
                timed = nil
                throw ByteStream.idleExpired(subject: subject, idleTimeout: idleTimeout, received: received)
            } catch {
                base = nil
                timed = nil
                if Task.isCancelled || error is CancellationError {
                    throw ParleyError(.cancelled, "Reading \(subject) was cancelled after \(received) bytes.", underlying: error)
                }
                throw ParleyError.wrapping(
                    error,
                    as: .transport,
                    "The body of \(subject) was cut off after \(received) bytes: \(error)"
                )
            }
        }
    }
}

/// A body's reader whose every wait for a chunk is bounded by `idleTimeout`, at a cost per stream rather than per
/// chunk.
///
/// One reader task per stream reads each chunk the consumer asks for, beside its watchdog (``Deadline``'s, the two
/// as one task group: ``Deadline/run(watchedBy:expired:_:)``), which sleeps until the deadline of the consumer's
/// current wait (waking at most once per `idleTimeout` while chunks keep coming). Once a wait passes the limit, the
/// watchdog fails it with ``Expired`` and the read is cancelled. (The reader is a task of its own because an
/// iterator's `next()` has no scope to own one: it outlives each call, and only it can be cancelled without the
/// consumer's task.) The body's iterator is
/// dropped as soon as the reader goes (at once unless a read is under way), so observers of the body see it
/// dropped as they did before. (Bounding each wait with ``Deadline``, a task group with a timer per chunk, cost
/// ~20 µs and ~800 bytes per chunk: every cancelled timer stays queued until it would have fired, so a 1 GiB
/// download held ~13 MiB of them on AsyncHTTPClient and ~50 MiB on URLSession, and ran at half curl's speed.)
final class IdleBoundedReader: Sendable {
    /// No chunk came for ``idleTimeout`` of waiting.
    struct Expired: Error {}

    private typealias Outcome = Result<ArraySlice<UInt8>?, any Error>

    private struct State {
        /// The reader task has been started (at the first wait).
        var started = false
        /// No more reads: the body ended, failed or expired, or the consumer went.
        var done = false
        /// The reader task is reading (it holds the body's iterator).
        var reading = false
        /// A chunk read for a consumer that was cancelled meanwhile.
        var ready: Outcome?
        /// The consumer waiting for a chunk, and since when.
        var consumer: CheckedContinuation<ArraySlice<UInt8>?, any Error>?
        var waitingSince: ContinuousClock.Instant?
        /// The reader task waiting for the consumer to ask.
        var reader: CheckedContinuation<Void, Never>?
        var readerTask: Task<Void, Never>?
        /// What `next` reports once done (the end, the failure, or the expiry).
        var end: Outcome = .success(nil)
    }

    /// The body's iterator, held here between reads so that the consumer going drops it at once.
    // swift-format-ignore
    private final class Chunks: @unchecked Sendable {  // SAFE: `iterator` is touched only by whoever `State.reading` (under the state's lock) says owns it: the reader task while it reads, otherwise the one that set `done` (deinit) or the reader task after `done`.
        var iterator: HTTPBody.AsyncIterator?
        init(_ iterator: HTTPBody.AsyncIterator) { self.iterator = iterator }
    }

    let idleTimeout: Duration
    private let chunks: Chunks
    private let state = LockedState(State())

    init(body: HTTPBody, idleTimeout: Duration) {
        self.chunks = Chunks(body.makeAsyncIterator())
        self.idleTimeout = idleTimeout
    }

    deinit {
        // The consumer went: drop the body's iterator now (or the reader does once its read returns; cancelling
        // the read closes the connection, as dropping the body does).
        let (idle, reader, task) = state.withLock { state in
            state.done = true
            state.ready = nil
            defer { state.reader = nil }
            return (!state.reading, state.reader, state.readerTask)
        }
        if idle { chunks.iterator = nil }
        reader?.resume()
        task?.cancel()
    }

    /// The next chunk; throws ``Expired`` once none has come for ``idleTimeout`` of waiting.
    func next() async throws -> ArraySlice<UInt8>? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let (outcome, reader, start) = state.withLock {
                    state -> (Outcome?, CheckedContinuation<Void, Never>?, Bool) in
                    if let ready = state.ready {
                        state.ready = nil
                        return (ready, nil, false)
                    }
                    if state.done { return (state.end, nil, false) }
                    if Task.isCancelled { return (.failure(CancellationError()), nil, false) }
                    state.consumer = continuation
                    state.waitingSince = .now
                    defer {
                        state.started = true
                        state.reader = nil
                    }
                    return (nil, state.reader, !state.started)
                }
                reader?.resume()
                if let outcome { continuation.resume(with: outcome) }
                if start { self.start() }
            }
        } onCancel: {
            let consumer = state.withLock { state in
                defer {
                    state.consumer = nil
                    state.waitingSince = nil
                }
                return state.consumer
            }
            consumer?.resume(throwing: CancellationError())
        }
    }

    /// Starts the reader and its watchdog (at the consumer's first wait, so a stream never read costs no task).
    private func start() {
        let state = self.state
        let chunks = self.chunks
        let idleTimeout = self.idleTimeout
        // Unstructured: the reader outlives each `next()` call of the iterator, which has no scope to own it.
        let reader = Task {
            _ = try? await Deadline.run(
                watchedBy: { await Deadline.watch(idle: idleTimeout) { now in Self.expire(state, idleTimeout, now) } },
                expired: { Expired() }
            ) { await Self.read(chunks, state) }
        }
        let stopped = state.withLock { state in
            state.readerTask = reader
            return state.done
        }
        if stopped { reader.cancel() }
    }

    /// The reader task: reads a chunk each time the consumer waits for one, and hands it over.
    private static func read(_ chunks: Chunks, _ state: LockedState<State>) async {
        while true {
            // Wait until the consumer asks (or went).
            var go: Bool?
            while go == nil {
                go = state.withLock { state -> Bool? in
                    if state.done { return false }
                    guard state.consumer != nil else { return nil }
                    state.reading = true
                    return true
                }
                guard go == nil else { break }
                await withCheckedContinuation { (parked: CheckedContinuation<Void, Never>) in
                    let now = state.withLock { state -> Bool in
                        if state.done || state.consumer != nil { return true }
                        state.reader = parked
                        return false
                    }
                    if now { parked.resume() }
                }
            }
            guard go == true else {
                chunks.iterator = nil
                return
            }
            let outcome: Outcome
            do {
                outcome = .success(try await chunks.iterator?.next())
            } catch {
                outcome = .failure(error)
            }
            let last: Bool
            if case .success(.some) = outcome { last = false } else { last = true }
            let (consumer, stop) = state.withLock { state -> (CheckedContinuation<ArraySlice<UInt8>?, any Error>?, Bool) in
                state.reading = false
                guard !state.done else { return (nil, true) }
                if last {
                    state.done = true
                    state.end = outcome
                }
                guard let consumer = state.consumer else {
                    if !last { state.ready = outcome }
                    return (nil, last)
                }
                state.consumer = nil
                state.waitingSince = nil
                return (consumer, last)
            }
            if stop { chunks.iterator = nil }
            consumer?.resume(with: outcome)
            if stop { return }
        }
    }
    /// The watchdog's look at `now` (``Deadline/watch(idle:check:)``): when to look again, or `nil` once the
    /// consumer's wait has passed `idleTimeout`, which fails the wait with ``Expired`` (the read is then cancelled).
    private static func expire(
        _ state: LockedState<State>,
        _ idleTimeout: Duration,
        _ now: ContinuousClock.Instant
    ) -> ContinuousClock.Instant? {
        let (expired, next) = state.withLock {
            state -> (CheckedContinuation<ArraySlice<UInt8>?, any Error>?, ContinuousClock.Instant?) in
            // Done otherwise (the body ended or the consumer went): the read's end stops the watchdog.
            guard !state.done else { return (nil, now + idleTimeout) }
            guard let next = Deadline.nextLook(since: state.waitingSince, idle: idleTimeout, now: now) else {
                state.done = true
                state.end = .failure(Expired())
                defer {
                    state.consumer = nil
                    state.waitingSince = nil
                }
                return (state.consumer, nil)
            }
            return (nil, next)
        }
        expired?.resume(throwing: Expired())
        return next
    }
}
