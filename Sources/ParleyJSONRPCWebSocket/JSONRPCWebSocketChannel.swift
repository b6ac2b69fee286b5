#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import Logging
import NIOCore
public import Parley
public import ParleyJSONRPC
import NIOWebSocket
import WSClient

/// JSON-RPC over one WebSocket connection (text messages), with hummingbird-project's `WSClient`.
///
/// One connection multiplexes any number of concurrent calls, routed by id. The server's notifications
/// (subscription updates in the style of `eth_subscribe`) arrive on ``incoming``; its requests are answered
/// by `router`. When the connection drops, every pending call fails at once with
/// ``ParleyError/Kind/transport`` and ``incoming`` ends.
///
/// ```swift
/// let channel = try await JSONRPCWebSocketChannel.connect(to: "ws://127.0.0.1:8080/rpc/ws")
/// let rpc = JSONRPCClient(channel: channel)
/// let sum = try await rpc.call(Sum(params: [1, 2]))
/// for await notification in channel.incoming { … }
/// ```
public final class JSONRPCWebSocketChannel: JSONRPCChannel {
    private let multiplexer: JSONRPCMultiplexer
    private let writer = LockedWriter()

    /// The server's notifications, in arrival order.
    public var incoming: AsyncStream<JSONRPCIncoming> { multiplexer.incoming }

    private init(router: JSONRPCRouter?) {
        multiplexer = JSONRPCMultiplexer(router: router)
    }

    /// Connects to `url` (`ws://…`) and returns once the WebSocket is open.
    ///
    /// - Parameters:
    ///   - router: Answers the server's requests.
    ///   - maxMessageSize: The largest message accepted from the server (default 16 MiB).
    /// - Throws: ``ParleyError/Kind/transport`` when the connection or the upgrade fails.
    public static func connect(
        to url: String,
        router: JSONRPCRouter? = nil,
        maxMessageSize: Int = 16 * 1024 * 1024
    ) async throws(ParleyError) -> JSONRPCWebSocketChannel {
        let channel = JSONRPCWebSocketChannel(router: router)
        let (opened, openedContinuation) = AsyncStream.makeStream(of: Result<Void, ParleyError>.self)
        var configuration = WebSocketClientConfiguration()
        configuration.maxFrameSize = maxMessageSize
        let logger = Logger(label: "parley.jsonrpc.websocket")
        Task {
            do {
                try await WebSocketClient.connect(url: url, configuration: configuration, logger: logger) { inbound, outbound, _ in
                    channel.writer.set(outbound)
                    openedContinuation.yield(.success(()))
                    openedContinuation.finish()
                    do {
                        for try await message in inbound.messages(maxSize: maxMessageSize) {
                            let data: Data =
                                switch message {
                                case .text(let text): Data(text.utf8)
                                case .binary(let buffer): Data(buffer.readableBytesView)
                                }
                            channel.multiplexer.dispatch(data) { data throws(ParleyError) in try await channel.send(data) }
                        }
                        channel.finish(reason: "the server closed the WebSocket")
                    } catch {
                        channel.finish(reason: "the WebSocket failed: \(error)")
                    }
                }
                channel.finish(reason: "the WebSocket closed")
            } catch {
                openedContinuation.yield(.failure(ParleyError(.transport, "The WebSocket to \(url) could not be opened: \(error).", underlying: error)))
                openedContinuation.finish()
                channel.finish(reason: "the WebSocket failed: \(error)")
            }
        }
        for await result in opened {
            try result.get()
            return channel
        }
        throw ParleyError(.transport, "The WebSocket to \(url) closed before it opened.")
    }

    /// Sends a message; waits for the answer to `ids` when there are any.
    public func exchange(_ message: Data, ids: [JSONRPCID]) async throws(ParleyError) -> JSONRPCReply? {
        try await multiplexer.exchange(message, ids: ids) { data throws(ParleyError) in try await self.send(data) }
    }

    /// Closes the WebSocket (normal closure); pending calls fail with ``ParleyError/Kind/transport``.
    public func close() async {
        finish(reason: "it was closed")
        try? await writer.get()?.close(.normalClosure, reason: nil)
    }

    private func finish(reason: String) {
        multiplexer.close(reason: reason)
    }

    private func send(_ data: Data) async throws(ParleyError) {
        guard let outbound = writer.get() else {
            throw ParleyError(.transport, "The WebSocket is not open.")
        }
        do {
            try await outbound.write(.text(String(decoding: data, as: UTF8.self)))
        } catch {
            throw ParleyError(.transport, "Writing to the WebSocket failed: \(error).", underlying: error)
        }
    }
}

/// The connection's outbound writer, once open.
private final class LockedWriter: Sendable {
    private let state = LockedState<WebSocketOutboundWriter?>(nil)
    func set(_ writer: WebSocketOutboundWriter) { state.withLock { $0 = writer } }
    func get() -> WebSocketOutboundWriter? { state.withLock { $0 } }
}
