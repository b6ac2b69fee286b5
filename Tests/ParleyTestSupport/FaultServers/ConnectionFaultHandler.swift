import NIOConcurrencyHelpers
import NIOCore
import Parley
import ParleyDemoServer

/// Reads requests on one ``ConnectionFaultServer`` connection, one after the other, and answers each by its path.
final class ConnectionFaultHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private enum Phase {
        /// Collecting a request head.
        case head
        /// Skipping the rest of a request body of this many bytes, then the next request.
        case body(remaining: Int)
        /// Reading and dropping everything until the client closes.
        case discarding
        /// The answer is out and the connection closes; nothing more is read.
        case done
    }

    private let shared: ConnectionFaultState
    private var phase = Phase.head
    private var received = ByteBuffer()

    init(shared: ConnectionFaultState) {
        self.shared = shared
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = Self.unwrapInboundIn(data)
        self.shared.idle.withLockedValue { $0[ObjectIdentifier(context.channel)] = nil }
        switch self.phase {
        case .discarding:
            let count = bytes.readableBytes
            self.shared.discarded.withLockedValue { $0 += count }
            return
        case .done:
            return
        case .head, .body:
            self.received.writeBuffer(&bytes)
        }
        self.process(context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.shared.idle.withLockedValue { $0[ObjectIdentifier(context.channel)] = nil }
        self.shared.stalled.withLockedValue { $0[ObjectIdentifier(context.channel)] = nil }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func process(context: ChannelHandlerContext) {
        while true {
            switch self.phase {
            case .body(let remaining):
                let skipped = min(remaining, self.received.readableBytes)
                self.received.moveReaderIndex(forwardBy: skipped)
                guard remaining == skipped else {
                    self.phase = .body(remaining: remaining - skipped)
                    return
                }
                self.phase = .head
                self.markIdleIfDone(context: context)
            case .head:
                guard let head = self.nextHead() else {
                    if self.received.readableBytes > FaultRequestHead.headLimit {
                        self.phase = .done
                        FaultResponder.send(FaultResponder.response("431 Too Large", [:], body: []), on: context.channel)
                    }
                    return
                }
                self.answer(head, context: context)
            case .discarding, .done:
                return
            }
        }
    }

    /// The next request head in `received` (consumed), if it is all there.
    private func nextHead() -> (path: String, query: QueryItems, bodyLength: Int)? {
        let view = self.received.readableBytesView
        let crlfcrlf: [UInt8] = [13, 10, 13, 10]
        guard let range = view.firstRange(of: crlfcrlf) else { return nil }
        let text = String(decoding: view[view.startIndex..<range.lowerBound], as: UTF8.self)
        self.received.moveReaderIndex(forwardBy: view.distance(from: view.startIndex, to: range.upperBound))
        self.received.discardReadBytes()
        let lines = text.split(separator: "\r\n")
        let requestLine = lines.first.map { $0.split(separator: " ") }
        let target = RequestTarget(requestLine.flatMap { $0.count == 3 ? String($0[1]) : nil } ?? "/")
        var length = 0
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":"), line[..<colon].lowercased() == "content-length" else { continue }
            length = Int(line[line.index(after: colon)...].trimmingPrefix(" ")) ?? 0
        }
        return (String(target.path), QueryItems(rawQuery: target.queryText ?? ""), length)
    }

    private func answer(_ head: (path: String, query: QueryItems, bodyLength: Int), context: ChannelHandlerContext) {
        let channel = context.channel
        switch head.path {
        case "/keep-alive":
            let answer = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok"
            channel.writeAndFlush(ByteBuffer(string: answer), promise: nil)
            self.phase = .body(remaining: head.bodyLength)
        case "/early-answer":
            let answer = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
            channel.writeAndFlush(ByteBuffer(string: answer), promise: nil)
            let early = self.received.readableBytes
            self.shared.discarded.withLockedValue { $0 += early }
            self.received.clear()
            self.phase = .discarding
            if head.query.first("then") == "stall" {
                // Stop reading until ``ConnectionFaultServer/resumeStalledConnections()``: the client's writes back up.
                self.shared.stalled.withLockedValue { $0[ObjectIdentifier(channel)] = channel }
                channel.setOption(ChannelOptions.autoRead, value: false).whenComplete { _ in }
            }
        case "/raw":
            self.phase = .done
            FaultResponder.send(Array((head.query.first("bytes") ?? "").utf8), on: channel)
        default:
            self.phase = .done
            let answer = FaultResponder.response("404 Not Found", [:], body: Array("no route \(head.path)".utf8))
            FaultResponder.send(answer, on: channel)
        }
    }

    /// A `/keep-alive` connection with no request in progress counts as idle.
    private func markIdleIfDone(context: ChannelHandlerContext) {
        guard self.received.readableBytes == 0 else { return }
        let channel = context.channel
        self.shared.idle.withLockedValue { $0[ObjectIdentifier(channel)] = channel }
    }
}
