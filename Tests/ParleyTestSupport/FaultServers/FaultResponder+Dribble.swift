import NIOConcurrencyHelpers
import NIOCore

extension FaultResponder {
    /// `/dribble-head?interval=MS`: the status line, then the header section one byte every `interval`, endlessly
    /// (`X-Dribble-1: 1`, `X-Dribble-2: 2`, …): every byte restarts a client's idle timeout, so only a deadline on
    /// the whole head ends the wait.
    static func dribbleHead(every interval: TimeAmount, on channel: any Channel) {
        Self.write(Array("HTTP/1.1 200 OK\r\n".utf8), on: channel)
        let state = NIOLockedValueBox<(line: [UInt8], index: Int, number: Int)>(([], 0, 0))
        // When the server closes the connection (it stops), the head is completed first: a client still waiting must
        // not see a head cut short. FoundationNetworking (Swift 6.3 toolchain) ends the process on one, a known
        // limitation with a test of its own that no timing test should trigger by accident.
        let rest: @Sendable () -> [UInt8] = {
            state.withLockedValue { state in
                defer { state.index = state.line.count }
                return Array(state.line[state.index...]) + Array("Content-Length: 0\r\n\r\n".utf8)
            }
        }
        channel.eventLoop.execute {
            try? channel.pipeline.syncOperations.addHandler(HeadCompletingCloser(rest: rest), position: .first)
        }
        Self.dribble(every: interval, on: channel) {
            state.withLockedValue { state in
                if state.index == state.line.count {
                    state.number += 1
                    state.line = Array("X-Dribble-\(state.number): \(state.number)\r\n".utf8)
                    state.index = 0
                }
                defer { state.index += 1 }
                return state.line[state.index]
            }
        }
    }

    /// `/dribble-body?interval=MS`: a whole head (`Content-Length: 1000000`, cacheable for a minute, so that a
    /// client's cache meets it too), then the body one byte every `interval`, until the client closes.
    static func dribbleBody(every interval: TimeAmount, on channel: any Channel) {
        let fields = ["Content-Type": "application/octet-stream", "Content-Length": "1000000", "Cache-Control": "max-age=60"]
        Self.write(Self.head("200 OK", fields), on: channel)
        let count = NIOLockedValueBox(0)
        Self.dribble(every: interval, on: channel) {
            count.withLockedValue { count in
                defer { count += 1 }
                return UInt8(ascii: "a") + UInt8(count % 26)
            }
        }
    }

    /// Writes `next()` every `interval` until the connection closes.
    private static func dribble(every interval: TimeAmount, on channel: any Channel, _ next: @escaping @Sendable () -> UInt8) {
        let timer = channel.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in
            Self.write([next()], on: channel)
        }
        channel.closeFuture.whenComplete { _ in timer.cancel() }
    }
}

/// Writes the end of a dribbled head before a close the server asks for goes through (see
/// ``FaultResponder/dribbleHead(every:on:)``).
final class HeadCompletingCloser: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let rest: @Sendable () -> [UInt8]
    private var completed = false

    init(rest: @escaping @Sendable () -> [UInt8]) {
        self.rest = rest
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard !completed, context.channel.isActive else { return context.close(mode: mode, promise: promise) }
        completed = true
        context.writeAndFlush(Self.wrapOutboundOut(ByteBuffer(bytes: rest()))).assumeIsolated()
            .whenComplete { _ in context.close(mode: mode, promise: promise) }
    }
}
