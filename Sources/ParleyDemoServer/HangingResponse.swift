import Hummingbird
import HummingbirdCore
import NIOCore

/// A request that never completes normally, used by `/hang` and `/hang-headers`.
///
/// It watches the inbound side of the connection with Hummingbird's
/// `consumeWithInboundCloseHandler`: when the client closes the connection, the request's `id`
/// (if any) is recorded as ``DemoEvent/clientClosed(_:)``.
struct HangingResponse: Sendable {
    /// The hanging request.
    let request: Request
    /// The `id` query parameter, if any.
    let id: String?
    /// The server's event board.
    let events: EventBoard

    /// Writes `.` every 20 ms until the client goes away or the server stops; always throws.
    func writeDots(to writer: inout any ResponseBodyWriter) async throws {
        let token = self.events.makeToken()
        defer { self.events.forget(.inboundClosed(token)) }
        try await self.request.body.consumeWithInboundCloseHandler { (_: RequestBody) async throws -> Void in
            let dot = ByteBuffer(string: ".")
            while true {
                try Task.checkCancellation()
                if self.events.hasFired(.stopping) { throw DemoServerError.serverStopping }
                if self.events.hasFired(.inboundClosed(token)) { throw DemoServerError.clientDisconnected }
                do {
                    try await writer.write(dot)
                } catch {
                    self.recordClientClosed()
                    throw error
                }
                await self.events.wait(forAnyOf: [.stopping, .inboundClosed(token)], timeout: TimingRoutes.hangTick)
            }
        } onInboundClosed: {
            self.events.fire(.inboundClosed(token))
            self.recordClientClosed()
        }
    }

    /// Waits, without sending anything, until the client closes the connection or the server stops.
    func waitForClose() async throws {
        let token = self.events.makeToken()
        defer { self.events.forget(.inboundClosed(token)) }
        try await self.request.body.consumeWithInboundCloseHandler { (_: RequestBody) async -> Void in
            await self.events.wait(forAnyOf: [.stopping, .inboundClosed(token)], timeout: nil)
        } onInboundClosed: {
            self.events.fire(.inboundClosed(token))
            self.recordClientClosed()
        }
    }

    /// Records the client's disconnection unless the server itself is stopping.
    private func recordClientClosed() {
        guard let id = self.id, !self.events.hasFired(.stopping) else { return }
        self.events.fire(.clientClosed(id))
    }
}
