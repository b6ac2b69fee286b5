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

        /// The origin of an `https` request's authority (`host`, `host:port`, `[v6]:port`); `nil` when it has none.
        init?(authority: String) {
            var rest = Substring(authority)
            if let at = rest.lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
            var port = 443
            if rest.hasPrefix("[") {
                guard let close = rest.firstIndex(of: "]") else { return nil }
                host = String(rest[rest.index(after: rest.startIndex)..<close])
                let after = rest[rest.index(after: close)...]
                if after.hasPrefix(":") {
                    guard let number = Int(after.dropFirst()) else { return nil }
                    port = number
                } else if !after.isEmpty {
                    return nil
                }
            } else if let colon = rest.lastIndex(of: ":") {
                host = String(rest[..<colon])
                guard let number = Int(rest[rest.index(after: colon)...]) else { return nil }
                port = number
            } else {
                host = String(rest)
            }
            guard !host.isEmpty, (1...65535).contains(port) else { return nil }
            self.port = port
        }

        /// Whether the host is an IP address (no SNI; the certificate must name the address).
        var isIPAddress: Bool { (try? SocketAddress(ipAddress: host, port: 0)) != nil }

        var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    }

    private struct Listener {
        var path: String
        var ready: EventLoopFuture<Void>
        var task: Task<Void, Never>
    }

    private struct State {
        var folder: Task<String, any Error>?
        var listeners: [Origin: Listener] = [:]
        var closed = false
        /// The last failure of a connection to each origin, numbered: a request that fails after it was marked
        /// (``mark()``) reports the relay's failure rather than AsyncHTTPClient's closed socket.
        var failures: [Origin: (serial: UInt64, error: ParleyError)] = [:]
        var serial: UInt64 = 0
        /// Names the sockets: a listener that died is replaced by one with a new name.
        var sockets = 0
    }

    private let context: NIOSSLContext
    private let verifier: PinVerifier
    private let group: any EventLoopGroup
    private let connectTimeout: TimeAmount
    private let state = LockedState(State())

    init(context: NIOSSLContext, verifier: PinVerifier, group: any EventLoopGroup, connectTimeout: TimeAmount) {
        self.context = context
        self.verifier = verifier
        self.group = group
        self.connectTimeout = connectTimeout
    }

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

    private func record(_ error: ParleyError, for origin: Origin) {
        state.withLock { state in
            state.serial += 1
            state.failures[origin] = (state.serial, error)
        }
    }

    /// The URL that AsyncHTTPClient is given for a request to `origin`: the relay's socket for it, then `pathAndQuery`.
    func url(for origin: Origin, pathAndQuery: String) async throws(ParleyError) -> String {
        let ready = try listener(for: origin)
        do {
            try await ready.get()
        } catch {
            throw ParleyError(
                .transport,
                "Parley could not open the local socket that carries pinned connections to \(origin): \(error).",
                underlying: error
            )
        }
        guard let path = state.withLock({ $0.listeners[origin]?.path }) else {
            throw ParleyError(.transport, "The transport has been shut down; nothing was sent.")
        }
        return "http+unix://" + Self.percentEncoded(path) + pathAndQuery
    }

    /// The future of `origin`'s listener, which starts it on first use.
    private func listener(for origin: Origin) throws(ParleyError) -> EventLoopFuture<Void> {
        try state.withLock { state throws(ParleyError) in
            if let listener = state.listeners[origin] { return listener.ready }
            guard !state.closed else {
                throw ParleyError(.transport, "The transport has been shut down; nothing was sent.")
            }
            let folder: Task<String, any Error>
            if let existing = state.folder {
                folder = existing
            } else {
                folder = Task { try await NIOThreadPool.singleton.runIfActive { try Self.makeFolder() } }
                state.folder = folder
            }
            state.sockets += 1
            let name = "\(state.sockets).sock"
            let ready = group.next().makePromise(of: Void.self)
            let task = Task { await self.serve(origin, folder: folder, name: name, ready: ready) }
            // The path is known once the folder is (`serve` sets it before the listener is ready).
            state.listeners[origin] = Listener(path: name, ready: ready.futureResult, task: task)
            return ready.futureResult
        }
    }

    private func setPath(_ path: String, of origin: Origin) {
        state.withLock { $0.listeners[origin]?.path = path }
    }

    /// Listens on `origin`'s socket and relays each connection AsyncHTTPClient makes to it, until shut down.
    private func serve(
        _ origin: Origin,
        folder: Task<String, any Error>,
        name: String,
        ready: EventLoopPromise<Void>
    ) async {
        let server: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>
        do {
            let path = try await folder.value + "/" + name
            setPath(path, of: origin)
            server = try await ServerBootstrap(group: group)
                .bind(unixDomainSocketPath: path) { child in
                    child.eventLoop.makeCompletedFuture {
                        try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: child)
                    }
                }
        } catch {
            // This request fails with the reason; the next one tries again (a new folder if this one was not made).
            let folderFailed = (try? await folder.value) == nil
            state.withLock { state in
                state.listeners[origin] = nil
                if folderFailed, state.folder == folder { state.folder = nil }
            }
            ready.fail(error)
            return
        }
        ready.succeed()
        try? await server.executeThenClose { inbound in
            try await withThrowingDiscardingTaskGroup { connections in
                for try await connection in inbound {
                    connections.addTask { await self.relay(connection, to: origin) }
                }
            }
        }
        // An accept error (out of descriptors) ends the listener: the next request for the origin starts a new one.
        let path = state.withLock { state -> String? in
            guard !state.closed, let listener = state.listeners[origin] else { return nil }
            state.listeners[origin] = nil
            return listener.path
        }
        if let path { _ = try? await NIOThreadPool.singleton.runIfActive { unlink(path) } }
    }

    /// Connects to `origin` (TLS, checked) and copies bytes both ways until either side closes.
    private func relay(_ downstream: NIOAsyncChannel<ByteBuffer, ByteBuffer>, to origin: Origin) async {
        let upstream: NIOAsyncChannel<ByteBuffer, ByteBuffer>
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

    /// A TLS connection to `origin` whose handshake has completed, its chain checked by the verifier; a
    /// ``/Parley/ParleyError`` that says why when there is none.
    private func connect(to origin: Origin) async throws(ParleyError) -> NIOAsyncChannel<ByteBuffer, ByteBuffer> {
        let verdict = LockedState<ParleyError?>(nil)
        let context = self.context
        let verifier = self.verifier
        let timeout = connectTimeout
        do {
            let (channel, handshake) = try await ClientBootstrap(group: group)
                .connectTimeout(timeout)
                .connect(host: origin.host, port: origin.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let tls = try NIOSSLClientHandler(
                            context: context,
                            serverHostname: origin.isIPAddress ? nil : origin.host,
                            customVerificationCallbackWithMetadata: { certificates, promise in
                                promise.completeWithTask {
                                    if let refusal = await verifier.check(certificates, origin: origin) {
                                        verdict.withLock { $0 = refusal }
                                        return .failed
                                    }
                                    return .certificateVerified(VerificationMetadata(nil))
                                }
                            }
                        )
                        let watcher = HandshakeWatcher(promise: channel.eventLoop.makePromise(of: Void.self))
                        try channel.pipeline.syncOperations.addHandler(tls)
                        try channel.pipeline.syncOperations.addHandler(watcher)
                        let bound = NIOLoopBound(watcher, eventLoop: channel.eventLoop)
                        let timer = channel.eventLoop.scheduleTask(in: timeout) {
                            bound.value.fail(HandshakeTimeout())
                            channel.close(promise: nil)
                        }
                        watcher.promise.futureResult.whenComplete { _ in timer.cancel() }
                        let wrapped = try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                        return (wrapped, watcher.promise.futureResult)
                    }
                }
            do {
                try await handshake.get()
            } catch {
                try? await channel.channel.close()
                throw error
            }
            return channel
        } catch {
            if let refusal = verdict.withLock({ $0 }) { throw refusal }
            if error is HandshakeTimeout {
                throw ParleyError(
                    .timeout,
                    "The TLS handshake with \(origin) did not finish within the connect timeout (\(timeout.nanoseconds / 1_000_000) ms).",
                    underlying: error
                )
            }
            // Refused, unreachable, a TLS version in common: as AsyncHTTPClient's own connections say it.
            let request = HTTPRequest(method: .get, scheme: "https", authority: origin.description, path: "/")
            throw AsyncHTTPClientTransport.translate(error, request: request)
        }
    }

    /// Stops listening, closes every relayed connection, and removes the sockets and their folder.
    func shutdown() async {
        let (tasks, folder) = state.withLock { state in
            state.closed = true
            return (state.listeners.values.map(\.task), state.folder)
        }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
        guard let folder, let path = try? await folder.value else { return }
        _ = try? await NIOThreadPool.singleton.runIfActive { Self.removeFolder(path) }
    }

    /// A new folder for the sockets, that only this user can enter.
    private static func makeFolder() throws -> String {
        // A socket's path holds at most 107 bytes: a long TMPDIR (macOS's are) falls back to /tmp.
        let base =
            ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty || $0.utf8.count > 64 ? nil : $0 } ?? "/tmp"
        var template =
            Array((base.hasSuffix("/") ? base : base + "/").utf8CString.dropLast()) + Array("parley-pins-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw ParleyError(
                .transport,
                "Parley could not make a folder for its pinned-connection sockets in \(base) (errno \(errno))."
            )
        }
        return String(cString: made)
    }

    private static func removeFolder(_ path: String) {
        guard let directory = opendir(path) else { return }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasSuffix(".sock") { unlink(path + "/" + name) }
        }
        closedir(directory)
        rmdir(path)
    }

    /// `text` with every byte but letters, digits, `-`, `.` and `_` percent-encoded (a socket path as a URL host).
    static func percentEncoded(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                encoded += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]], as: UTF8.self)
            }
        }
        return encoded
    }
}

/// The handshake of a relayed connection did not finish within the connect timeout.
private struct HandshakeTimeout: Error {}

/// Completes its promise when the TLS handshake completes, or fails it when the connection fails or closes first.
private final class HandshakeWatcher: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    let promise: EventLoopPromise<Void>
    private var done = false

    init(promise: EventLoopPromise<Void>) {
        self.promise = promise
    }

    func fail(_ error: any Error) {
        guard !done else { return }
        done = true
        promise.fail(error)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event, !done {
            done = true
            promise.succeed()
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(error)
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(ChannelError.eof)
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        fail(ChannelError.ioOnClosedChannel)
    }
}
