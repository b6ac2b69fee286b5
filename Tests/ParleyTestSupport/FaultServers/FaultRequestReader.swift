import NIOCore

/// Collects one request on a fault server connection and hands it to the ``FaultResponder``; bytes after it are
/// read and ignored (reading goes on, so the server sees the client close).
final class FaultRequestReader: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let responder: FaultResponder
    private var received: ByteBuffer?
    private var answered = false

    init(responder: FaultResponder) {
        self.responder = responder
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !self.answered else { return }
        var bytes = Self.unwrapInboundIn(data)
        self.received.setOrWriteBuffer(&bytes)
        guard let received = self.received else { return }
        switch FaultRequestHead.parse(received) {
        case .incomplete:
            return
        case .malformed(let reason):
            self.answered = true
            let answer = FaultResponder.response("400 Bad Request", ["Content-Type": "text/plain"], body: Array(reason.utf8))
            FaultResponder.send(answer, on: context.channel)
        case .complete(let head):
            self.answered = true
            self.received = nil
            self.responder.respond(to: head, on: context.channel)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A reset or a failed write from a client that went away: the connection is over.
        context.close(promise: nil)
    }
}
