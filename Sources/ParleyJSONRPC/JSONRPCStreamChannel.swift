public import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
public import Parley

/// JSON-RPC over a pair of byte streams — a child process's stdin/stdout, pipes, a socket — in either
/// framing (``JSONRPCFraming``). One channel multiplexes any number of concurrent calls, routed by id.
///
/// Both sides may send requests and notifications: the peer's requests are answered by `router` (or with
/// `-32601 Method not found` when there is none), its notifications arrive on ``incoming``. When the input
/// ends or breaks, every pending call fails at once with ``ParleyError/Kind/transport``.
public final class JSONRPCStreamChannel: JSONRPCChannel {
    private let output: FileHandle
    private let framing: JSONRPCFraming
    private let multiplexer: JSONRPCMultiplexer
    private let writeLock = NSLock()

    /// The peer's notifications, in arrival order (its requests go to the router).
    public var incoming: AsyncStream<JSONRPCIncoming> { multiplexer.incoming }

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
        let multiplexer = JSONRPCMultiplexer(router: router)
        self.multiplexer = multiplexer
        let parser = FrameParser(framing: framing, maxMessageSize: maxMessageSize)
        let thread = Thread { [weak self] in
            var parser = parser
            while true {
                let chunk = Self.read(input)
                guard let self else { return }
                guard let chunk, !chunk.isEmpty else {
                    multiplexer.close(reason: chunk == nil ? "reading from the peer failed" : "the peer closed its output")
                    return
                }
                do {
                    for message in try parser.feed(chunk) {
                        multiplexer.dispatch(message) { [weak self] data throws(ParleyError) in try self?.write(data) }
                    }
                } catch {
                    multiplexer.close(reason: "the peer sent \(error)")
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
        try await multiplexer.exchange(message, ids: ids) { [self] data throws(ParleyError) in try write(data) }
    }

    /// Stops waiting: every pending call fails with ``ParleyError/Kind/transport``. Closing the file handles
    /// is the caller's (or the child process's) business.
    public func close() {
        multiplexer.close(reason: "it was closed")
    }

    private func write(_ message: Data) throws(ParleyError) {
        let framed = framing.frame(message)
        do {
            try writeLock.withLock { try output.write(contentsOf: framed) }
        } catch {
            throw ParleyError(.transport, "Writing to the JSON-RPC peer failed: \(error).", underlying: error)
        }
    }
}
