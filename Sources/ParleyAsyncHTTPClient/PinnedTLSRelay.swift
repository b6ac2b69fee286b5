import HTTPTypes
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import Parley

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Carries the `https` connections of an ``AsyncHTTPClientTransport`` whose ``/Parley/TLSPolicy`` pins public keys.
///
/// AsyncHTTPClient gives no way to see a server's certificates during the handshake (swift-server/async-http-client#285),
/// so it does not make these connections: it speaks plain HTTP/1.1 to a Unix domain socket of the relay's own, one per
/// origin, in a folder that only this user can enter (`mkdtemp`, mode 0700), and the relay opens the TLS connection to
/// the server itself, with NIOSSL and a verification callback (``PinVerifier``) that checks the chain and the pins
/// before one byte of the request goes out. Everything else about the request (pooling, timeouts, bodies, the guard on
/// each connection) is AsyncHTTPClient's as usual; the connection is HTTP/1.1 (no HTTP/2), and its bytes are copied once
/// more, between the socket and the TLS connection.
final class PinnedTLSRelay: Sendable {
    /// A server the relay connects to.
    struct Origin: Hashable, Sendable, CustomStringConvertible {
        /// The host, without brackets for IPv6.
        var host: String
        var port: Int

        /// The origin of an `https` request; `nil` when its host or port cannot be read.
        init?(_ target: RequestTarget) {
            guard !target.host.isEmpty, !target.hasBadPort, let port = target.port else { return nil }
            host = target.host
            self.port = port
        }

        /// Whether the host is an IP address (no SNI; the certificate must name the address).
        var isIPAddress: Bool { (try? SocketAddress(ipAddress: host, port: 0)) != nil }

        var description: String { RequestTarget.authority(host: host, port: port) }
    }

    /// A listening socket and the task that serves it, from its start until its task has ended.
    private struct Listener {
        var origin: Origin
        /// The socket's file name until the folder is known, then its path.
        var path: String
        var ready: EventLoopFuture<Void>
        var task: Task<Void, Never>?
        /// The listening channel, once bound: closing it ends the accept loop after the connections already accepted.
        var channel: (any Channel)?
        /// Completed when the accept loop has ended, every accepted connection handed to a relay or closed.
        var acceptEnded: EventLoopPromise<Void>
        /// Whether connections are still taken in: `false` once the socket is closing.
        var accepting = true
        /// Connections accepted and not yet taken by the accept loop: NIO drops those that reach its stream after it
        /// finished, so the listener closes them itself once its loop has ended.
        var unclaimed: [ObjectIdentifier: any Channel] = [:]
        /// Relayed connections open now.
        var connections = 0
        /// Requests that hold the socket's path and may connect to it (``withURL(for:pathAndQuery:_:)``).
        var leases = 0
        /// When a request last asked for the socket or ended its lease.
        var lastUsed = NIODeadline.now()
    }

    private struct State {
        var folder: Task<String, any Error>?
        /// Every listener whose task runs, by socket name; one per origin is ``active`` (the others are closing).
        var listeners: [String: Listener] = [:]
        /// The socket name that serves each origin now.
        var active: [Origin: String] = [:]
        var closed = false
        /// The last failure of a connection to each origin, numbered: a request that fails after it was marked
        /// (``mark()``) reports the relay's failure rather than AsyncHTTPClient's closed socket.
        var failures: [Origin: (serial: UInt64, error: ParleyError)] = [:]
        var serial: UInt64 = 0
        /// Names the sockets: a listener that died or closed is replaced by one with a new name.
        var sockets = 0
    }

    let context: NIOSSLContext
    let verifier: PinVerifier
    let group: any EventLoopGroup
    let connectTimeout: TimeAmount
    /// How long a socket stays without connections and requests before it is closed.
    private let idleTimeout: TimeAmount
    private let state = LockedState(State())
    /// Each origin whose socket closed for idleness, as `host:port` (for tests).
    let idleClosures: AsyncStream<String>
    private let idleClosed: AsyncStream<String>.Continuation

    /// A socket closes once it has had no relayed connection (AsyncHTTPClient closed its pooled ones) and no request for
    /// `idleTimeout`, so that a client that met many origins does not keep one for each until it shuts down.
    init(
        context: NIOSSLContext,
        verifier: PinVerifier,
        group: any EventLoopGroup,
        connectTimeout: TimeAmount,
        idleTimeout: TimeAmount
    ) {
        self.context = context
        self.verifier = verifier
        self.group = group
        self.connectTimeout = connectTimeout
        self.idleTimeout = idleTimeout
        (idleClosures, idleClosed) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(64))
    }

    /// The origins with an open socket now.
    var listenerCount: Int { state.withLock { $0.active.count } }

    /// The number of failures so far, to pass to ``failure(of:since:)``.
    func mark() -> UInt64 {
        state.withLock { $0.serial }
    }

    /// The failure of a connection to `origin` recorded after `mark`, if any.
    func failure(of origin: Origin, since mark: UInt64) -> ParleyError? {
        state.withLock { state in
            guard let failure = state.failures[origin], failure.serial > mark else { return nil }
            return failure.error
        }
    }

    func record(_ error: ParleyError, for origin: Origin) {
        state.withLock { state in
            state.serial += 1
            state.failures[origin] = (state.serial, error)
        }
    }

    /// Runs `body` with the URL that AsyncHTTPClient is given for a request to `origin`: the relay's socket for it,
    /// then `pathAndQuery`. The socket stays open while `body` runs, however long AsyncHTTPClient takes to connect.
    func withURL<T>(
        for origin: Origin,
        pathAndQuery: String,
        _ body: (String) async throws -> T
    ) async throws -> T {
        let (path, name) = try await lease(origin)
        defer { release(name) }
        return try await body("http+unix://" + Self.percentEncoded(path) + pathAndQuery)
    }

    /// The path of `origin`'s socket, counted as in use (``Listener/leases``) until ``release(_:)``.
    ///
    /// The lease is taken when the listener is looked up or made, before its socket is ready: a socket is never
    /// closed for idleness while a request waits for it (on a loaded machine the wait can outlast the idle timeout).
    private func lease(_ origin: Origin) async throws(ParleyError) -> (path: String, name: String) {
        while true {
            let (ready, name) = try listener(for: origin)
            do {
                try await ready.get()
            } catch {
                release(name)
                throw ParleyError(
                    .transport,
                    "Parley could not open the local socket that carries pinned connections to \(origin): \(error).",
                    underlying: error
                )
            }
            enum Outcome { case leased(String), closed, replaced }
            let outcome = state.withLock { state -> Outcome in
                guard !state.closed else { return .closed }
                // Its accept loop ended (an accept error) while this task waited to run: the next turn opens a new one.
                guard state.active[origin] == name, let path = state.listeners[name]?.path else { return .replaced }
                return .leased(path)
            }
            switch outcome {
            case .leased(let path): return (path, name)
            case .closed:
                release(name)
                throw ParleyError(.transport, "The transport has been shut down; nothing was sent.")
            case .replaced:
                release(name)
                continue
            }
        }
    }

    /// Ends a lease of ``lease(_:)``: the socket's idle clock starts again from now.
    private func release(_ name: String) {
        let idle = state.withLock { state -> Bool in
            guard let listener = state.listeners[name] else { return false }
            state.listeners[name]?.leases = listener.leases - 1
            state.listeners[name]?.lastUsed = .now()
            return listener.leases == 1 && listener.connections == 0
        }
        if idle { scheduleIdleCheck(of: name, after: idleTimeout) }
    }

    /// The future and socket name of `origin`'s listener, which starts it on first use, leased (``Listener/leases``)
    /// for the caller: it stays open until ``release(_:)``.
    private func listener(for origin: Origin) throws(ParleyError) -> (EventLoopFuture<Void>, String) {
        try state.withLock { state throws(ParleyError) in
            if let name = state.active[origin], let listener = state.listeners[name] {
                state.listeners[name]?.leases += 1
                state.listeners[name]?.lastUsed = .now()
                return (listener.ready, name)
            }
            guard !state.closed else {
                throw ParleyError(.transport, "The transport has been shut down; nothing was sent.")
            }
            let folder: Task<String, any Error>
            if let existing = state.folder {
                folder = existing
            } else {
                // Unstructured: the folder is made once, off the loop, for every listener; each awaits it.
                folder = Task { try await NIOThreadPool.singleton.runIfActive { try Self.makeFolder() } }
                state.folder = folder
            }
            state.sockets += 1
            let name = "\(state.sockets).sock"
            let loop = group.next()
            let ready = loop.makePromise(of: Void.self)
            // The path is known once the folder is (`serve` sets it before the listener is ready).
            state.listeners[name] = Listener(
                origin: origin,
                path: name,
                ready: ready.futureResult,
                acceptEnded: loop.makePromise(of: Void.self),
                leases: 1
            )
            state.active[origin] = name
            // Unstructured: a listener serves its origin across calls until idle; `shutdown` awaits it.
            state.listeners[name]?.task = Task { await self.serve(origin, folder: folder, name: name, ready: ready) }
            return (ready.futureResult, name)
        }
    }

    /// Counts a relayed connection of the listener `name` in (`+1`) or out (`-1`); the last one out starts the idle
    /// clock.
    private func count(_ change: Int, name: String) {
        let idle = state.withLock { state -> Bool in
            guard state.listeners[name] != nil else { return false }
            state.listeners[name]?.connections += change
            return state.listeners[name]?.connections == 0 && state.listeners[name]?.leases == 0
        }
        if idle { scheduleIdleCheck(of: name, after: idleTimeout) }
    }

    private func scheduleIdleCheck(of name: String, after delay: TimeAmount) {
        group.next().scheduleTask(in: delay) { self.closeIfIdle(name) }
    }

    /// Closes the listener `name` if it has had neither a connection nor a request (nor a lease) for ``idleTimeout``:
    /// its accept loop ends and its task removes the socket. A request that comes later opens a new one.
    private func closeIfIdle(_ name: String) {
        let now = NIODeadline.now()
        enum Verdict { case close(any Channel, Origin), checkAgain(TimeAmount), keep }
        let verdict = state.withLock { state -> Verdict in
            guard !state.closed, let listener = state.listeners[name], state.active[listener.origin] == name,
                let channel = listener.channel, listener.connections == 0, listener.leases == 0
            else { return .keep }
            let idleSince = now - listener.lastUsed
            guard idleSince >= idleTimeout else { return .checkAgain(idleTimeout - idleSince) }
            state.active[listener.origin] = nil
            state.listeners[name]?.accepting = false
            return .close(channel, listener.origin)
        }
        switch verdict {
        case .close(let channel, let origin):
            channel.close(promise: nil)
            idleClosed.yield(origin.description)
        case .checkAgain(let delay): scheduleIdleCheck(of: name, after: delay)
        case .keep: break
        }
    }

    /// Listens on `origin`'s socket and relays each connection AsyncHTTPClient makes to it, until the socket closes
    /// (idle, or shut down).
    ///
    /// The accept loop is never cancelled: a connection accepted but not yet handed out would be dropped unfinished,
    /// which NIO traps on. It ends when the listening channel closes, after the connections already accepted.
    private func serve(
        _ origin: Origin,
        folder: Task<String, any Error>,
        name: String,
        ready: EventLoopPromise<Void>
    ) async {
        let server: NIOAsyncChannel<any Channel, Never>
        let path: String
        do {
            path = try await folder.value + "/" + name
            state.withLock { $0.listeners[name]?.path = path }
            // Connections are handed out as plain channels, not reading until a relay wraps them: a wrapped one that NIO
            // dropped (it arrived as the socket closed) would trap when deinited unfinished.
            server = try await ServerBootstrap(group: group)
                .childChannelOption(.autoRead, value: false)
                .bind(unixDomainSocketPath: path) { child in
                    guard self.adopt(child, name: name) else {
                        child.close(promise: nil)
                        return child.eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel)
                    }
                    return child.eventLoop.makeSucceededFuture(child)
                }
        } catch {
            // This request fails with the reason; the next one tries again (a new folder if this one was not made).
            let folderFailed = (try? await folder.value) == nil
            let acceptEnded = state.withLock { state in
                if state.active[origin] == name { state.active[origin] = nil }
                if folderFailed, state.folder == folder { state.folder = nil }
                return state.listeners.removeValue(forKey: name)?.acceptEnded
            }
            ready.fail(error)
            acceptEnded?.succeed()
            return
        }
        let (open, acceptEnded) = state.withLock { state -> (Bool, EventLoopPromise<Void>?) in
            state.listeners[name]?.channel = server.channel
            if state.closed { state.listeners[name]?.accepting = false }
            return (!state.closed, state.listeners[name]?.acceptEnded)
        }
        if !open { server.channel.close(promise: nil) }
        ready.succeed()
        // Idle from the start until AsyncHTTPClient connects.
        scheduleIdleCheck(of: name, after: idleTimeout)
        try? await server.executeThenClose { inbound in
            try await withThrowingDiscardingTaskGroup { connections in
                do {
                    for try await connection in inbound {
                        claim(connection, name: name)
                        count(+1, name: name)
                        connections.addTask {
                            await self.relay(connection, to: origin)
                            self.count(-1, name: name)
                        }
                    }
                } catch {
                    // An accept error (out of descriptors) ends the listener; the next request starts a new one.
                    server.channel.close(promise: nil)
                }
                // No connection is adopted from now on; those NIO accepted but never handed out are closed.
                let unclaimed = state.withLock { state -> [any Channel] in
                    state.listeners[name]?.accepting = false
                    let unclaimed = state.listeners[name].map { Array($0.unclaimed.values) } ?? []
                    state.listeners[name]?.unclaimed = [:]
                    return unclaimed
                }
                for channel in unclaimed { channel.close(promise: nil) }
                acceptEnded?.succeed()
            }
        }
        let removes = state.withLock { state -> Bool in
            state.listeners[name] = nil
            if state.active[origin] == name { state.active[origin] = nil }
            return !state.closed
        }
        // After a shutdown the folder goes whole.
        if removes { _ = try? await NIOThreadPool.singleton.runIfActive { unlink(path) } }
    }

    /// Records a connection just accepted on the listener `name`, unless the listener is closing: `false` then, and
    /// the caller closes it.
    private func adopt(_ child: any Channel, name: String) -> Bool {
        state.withLock { state in
            guard state.listeners[name]?.accepting == true else { return false }
            state.listeners[name]?.unclaimed[ObjectIdentifier(child)] = child
            return true
        }
    }

    /// The accept loop took `child`: its relay owns it now.
    private func claim(_ child: any Channel, name: String) {
        state.withLock { _ = $0.listeners[name]?.unclaimed.removeValue(forKey: ObjectIdentifier(child)) }
    }

    /// Connects to `origin` (TLS, checked) and copies bytes both ways until either side closes.
    private func relay(_ child: any Channel, to origin: Origin) async {
        let downstream: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        do {
            // Wrapped on its event loop, in one turn of it, so that nothing can change in between. Nothing may throw once
            // the wrapper exists: a wrapper dropped unfinished traps. So a channel AsyncHTTPClient already closed is
            // found out first: adding a handler of no consequence throws once its pipeline is torn down, and turning
            // reading on throws once it is closed. Reading only asks the loop to read: nothing is read before the
            // wrapper is there, at the end of this turn.
            downstream = try await child.eventLoop.submit {
                try child.pipeline.syncOperations.addHandler(PipelineProbe())
                try child.syncOptions?.setOption(.autoRead, value: true)
                return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: child)
            }.get()
        } catch {
            child.close(promise: nil)
            return
        }
        let upstream: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        if Task.isCancelled || state.withLock({ $0.closed }) {
            try? await downstream.executeThenClose { _, _ in }
            return
        }
        do {
            upstream = try await connect(to: origin)
        } catch {
            record(error, for: origin)
            try? await downstream.executeThenClose { _, _ in }
            return
        }
        try? await downstream.executeThenClose { downstreamIn, downstreamOut in
            try await upstream.executeThenClose { upstreamIn, upstreamOut in
                try await withThrowingTaskGroup(of: Void.self) { copies in
                    // Each copy waits, at its end, until what it wrote has gone out: closing drops pending writes,
                    // and a response read slowly would lose its tail.
                    copies.addTask {
                        for try await bytes in downstreamIn { try await upstreamOut.write(bytes) }
                        try await upstream.channel.writeAndFlush(ByteBuffer())
                    }
                    copies.addTask {
                        for try await bytes in upstreamIn { try await downstreamOut.write(bytes) }
                        try await downstream.channel.writeAndFlush(ByteBuffer())
                    }
                    // Either side's end (or failure) ends the connection: HTTP/1.1 needs no half-closed socket.
                    try await copies.next()
                    copies.cancelAll()
                }
            }
        }
    }

    /// Stops listening, closes every relayed connection, and removes the sockets and their folder.
    func shutdown() async {
        let (listeners, folder) = state.withLock { state in
            state.closed = true
            for name in state.listeners.keys { state.listeners[name]?.accepting = false }
            return (Array(state.listeners.values), state.folder)
        }
        // The accept loops end once their channels close (a listener still binding closes its own); then the relays,
        // each accepted connection now owned by one, are cancelled.
        for listener in listeners { listener.channel?.close(promise: nil) }
        for listener in listeners {
            try? await listener.acceptEnded.futureResult.get()
            listener.task?.cancel()
        }
        for listener in listeners { await listener.task?.value }
        idleClosed.finish()
        guard let folder, let path = try? await folder.value else { return }
        _ = try? await NIOThreadPool.singleton.runIfActive { Self.removeFolder(path) }
    }
}

/// A handler that does nothing: adding it to a channel's pipeline succeeds exactly when the pipeline is still there.
private final class PipelineProbe: ChannelInboundHandler, Sendable {
    typealias InboundIn = NIOAny
}
