import HTTPTypes
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import Parley

extension PinnedTLSRelay {
    /// A TLS connection to `origin` whose handshake has completed, its chain checked by the verifier; a
    /// ``/Parley/ParleyError`` that says why when there is none.
    func connect(to origin: Origin) async throws(ParleyError) -> NIOAsyncChannel<ByteBuffer, ByteBuffer> {
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
