import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// The fault server's open connections, counted exactly, with waiters for the moment none is left.
///
/// A connection counts from the moment it is accepted (its channel is initialised) until its channel's
/// `closeFuture` fires; waiters are resumed from that callback, not by polling.
final class FaultConnectionRegistry: Sendable {
    private struct Waiter {
        let continuation: CheckedContinuation<Void, any Error>
        var timer: Scheduled<Void>?
    }

    private struct State {
        var open: [ObjectIdentifier: any Channel] = [:]
        /// The open connections on which a request byte arrived.
        var used: Set<ObjectIdentifier> = []
        var accepted = 0
        var waiters: [Int: Waiter] = [:]
        var nextWaiter = 0
    }

    private let state = NIOLockedValueBox(State())

    /// How many connections are open now.
    var openCount: Int { self.state.withLockedValue { $0.open.count } }

    /// How many connections have been accepted in all.
    var acceptedCount: Int { self.state.withLockedValue { $0.accepted } }

    /// The channels open now.
    var openChannels: [any Channel] { self.state.withLockedValue { Array($0.open.values) } }

    /// Counts `channel` as open until its `closeFuture` fires.
    func track(_ channel: any Channel) {
        self.state.withLockedValue { state in
            state.open[ObjectIdentifier(channel)] = channel
            state.accepted += 1
        }
        channel.closeFuture.whenComplete { _ in self.closed(channel) }
    }

    /// Marks `channel` as having received a request byte: ``waitUntilIdle(timeout:on:)`` waits for it to close.
    func markUsed(_ channel: any Channel) {
        self.state.withLockedValue { state in
            let id = ObjectIdentifier(channel)
            if state.open[id] != nil { state.used.insert(id) }
        }
    }

    private func closed(_ channel: any Channel) {
        let idle: [Waiter] = self.state.withLockedValue { state in
            state.open[ObjectIdentifier(channel)] = nil
            state.used.remove(ObjectIdentifier(channel))
            guard state.used.isEmpty else { return [] }
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in idle {
            waiter.timer?.cancel()
            waiter.continuation.resume()
        }
    }

    /// Returns once no connection that received a request byte is open; throws ``FaultServerError`` with the count
    /// left if `timeout` passes first, and `CancellationError` if the calling task is cancelled.
    func waitUntilIdle(timeout: Duration, on eventLoop: any EventLoop) async throws {
        let id = self.state.withLockedValue { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                if Task.isCancelled { return continuation.resume(throwing: CancellationError()) }
                let registered = self.state.withLockedValue { state in
                    guard !state.used.isEmpty else { return false }
                    state.waiters[id] = Waiter(continuation: continuation)
                    return true
                }
                guard registered else { return continuation.resume() }
                let timer = eventLoop.scheduleTask(in: TimeAmount.nanoseconds(Self.nanoseconds(timeout))) {
                    self.fail(id, with: nil, timeout: timeout)
                }
                let stillWaiting = self.state.withLockedValue { state in
                    guard state.waiters[id] != nil else { return false }
                    state.waiters[id]?.timer = timer
                    return true
                }
                if !stillWaiting { timer.cancel() }
            }
        } onCancel: {
            self.fail(id, with: CancellationError(), timeout: timeout)
        }
    }

    /// Resumes waiter `id`, if still waiting, with `error` (or the count left when `error` is `nil`).
    private func fail(_ id: Int, with error: (any Error)?, timeout: Duration) {
        let removed = self.state.withLockedValue { state in
            (state.waiters.removeValue(forKey: id), state.used.count)
        }
        guard let waiter = removed.0 else { return }
        waiter.timer?.cancel()
        waiter.continuation.resume(throwing: error ?? FaultServerError.stillOpen(removed.1, after: timeout))
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : whole &+ attoseconds / 1_000_000_000
    }
}

extension FaultConnectionRegistry {
    /// Starts a server on 127.0.0.1 at an ephemeral port whose connections this registry tracks, each read by the
    /// handler `makeHandler` returns; returns its listening channel and port. `server` names it in the error thrown
    /// when the socket has no port.
    func bind(
        server: String,
        makeHandler: @escaping @Sendable () -> any ChannelHandler
    ) async throws -> (any Channel, Int) {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { child in
                self.track(child)
                return child.eventLoop.makeCompletedFuture {
                    try child.pipeline.syncOperations.addHandler(UseMarker(registry: self))
                    try child.pipeline.syncOperations.addHandler(makeHandler())
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        guard let port = channel.localAddress?.port else {
            try? await channel.close()
            throw FaultServerError(openConnections: 0, message: "the \(server)'s socket has no local port")
        }
        return (channel, port)
    }
}

/// Marks its connection as used (``FaultConnectionRegistry/markUsed(_:)``) when the first byte arrives, and passes
/// every byte on.
private final class UseMarker: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let registry: FaultConnectionRegistry
    private var marked = false

    init(registry: FaultConnectionRegistry) {
        self.registry = registry
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if !self.marked {
            self.marked = true
            self.registry.markUsed(context.channel)
        }
        context.fireChannelRead(data)
    }
}
