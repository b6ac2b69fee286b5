import Crypto
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import ParleyDemoServer

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Carries out a ``FaultScript`` on a connection, writing raw HTTP/1.1 bytes through the channel.
///
/// Every response says `Connection: close`. Complete responses are followed by the server closing its side;
/// the stalling scripts (`/slow-headers` before its delay, `/slow-body`, `/never-ends`) wait for the client to
/// close, so that a client which keeps such a connection shows up as an open connection.
struct FaultResponder: Sendable {
    /// Requests seen per `/storm` key.
    let stormCounters: NIOLockedValueBox<[String: Int]>

    /// Answers `head` on `channel` as its path says.
    func respond(to head: FaultRequestHead, on channel: any Channel) {
        switch FaultScript(head) {
        case .ok:
            Self.send(Self.response("200 OK", ["Content-Type": "text/plain"], body: Array("ok".utf8)), on: channel)
        case .reset:
            Self.reset(channel)
        case .closeMidBody(let length):
            var bytes = Self.head("200 OK", ["Content-Type": "application/octet-stream", "Content-Length": "\(length)"])
            bytes += Self.pattern(length / 2)
            Self.send(bytes, on: channel)
        case .closeMidBodyNoLength:
            var bytes = Self.head("200 OK", ["Content-Type": "text/plain"])
            bytes += Self.closeDelimitedBody
            Self.send(bytes, on: channel)
        case .closeMidChunked:
            var bytes = Self.head("200 OK", ["Content-Type": "text/plain", "Transfer-Encoding": "chunked"])
            bytes += Self.chunk(Array("first chunk;".utf8)) + Self.chunk(Array("second chunk;".utf8))
            Self.send(bytes, on: channel)
        case .slowHeaders(let delay):
            let answer = Self.response("200 OK", ["Content-Type": "text/plain"], body: Array("late".utf8))
            let timer = channel.eventLoop.scheduleTask(in: delay) { Self.send(answer, on: channel) }
            channel.closeFuture.whenComplete { _ in timer.cancel() }
        case .slowBody:
            var bytes = Self.head("200 OK", ["Content-Type": "application/octet-stream", "Content-Length": "1000"])
            bytes += Self.pattern(10)
            Self.write(bytes, on: channel)
        case .neverEnds(let interval):
            Self.write(
                Self.head("200 OK", ["Content-Type": "application/octet-stream", "Transfer-Encoding": "chunked"]),
                on: channel
            )
            if let interval {
                let timer = channel.eventLoop.scheduleRepeatedTask(initialDelay: .zero, delay: interval) { _ in
                    Self.write(Self.chunk(Self.pattern(64)), on: channel)
                }
                channel.closeFuture.whenComplete { _ in timer.cancel() }
            } else {
                Self.pump(channel)
            }
        case .invalidStatusLine:
            Self.send(Array("HTTP/1.1 abc Nope\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok".utf8), on: channel)
        case .invalidJSON:
            Self.send(Self.response("200 OK", ["Content-Type": "application/json"], body: Array(#"{"id": 1,"#.utf8)), on: channel)
        case .noLocation:
            Self.send(Self.response("302 Found", [:], body: []), on: channel)
        case .redirectLoop(let target):
            Self.send(Self.response("302 Found", ["Location": target], body: []), on: channel)
        case .storm(let key, let failures, let retryAfter):
            Self.send(self.storm(key: key, failures: failures, retryAfter: retryAfter), on: channel)
        case .gzip:
            let body = GzipStream(payload: GzipStream.demoPayload).bytes
            Self.send(Self.response("200 OK", Self.gzipFields, body: body), on: channel)
        case .truncatedGzip:
            let whole = GzipStream(payload: GzipStream.demoPayload).bytes
            let body = Array(whole.prefix(whole.count - 8 - GzipStream.demoPayload.count / 2))
            Self.send(Self.response("200 OK", Self.gzipFields, body: body), on: channel)
        case .refuse(let status, let reason):
            Self.send(Self.response(status, ["Content-Type": "text/plain"], body: Array(reason.utf8)), on: channel)
        case .dribbleHead(let interval):
            Self.dribbleHead(every: interval, on: channel)
        case .dribbleBody(let interval):
            Self.dribbleBody(every: interval, on: channel)
        case .hostile(let answer):
            Self.send(answer.bytes, on: channel)
        case .hardening(let script):
            Self.respond(script, on: channel)
        case .silentWebSocket(let key):
            // RFC 6455 4.2.2: the accept value is base64(SHA-1(key + the protocol's GUID)).
            let accept = Data(Insecure.SHA1.hash(data: Data((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8)))
                .base64EncodedString()
            let head =
                "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: \(accept)\r\n\r\n"
            Self.write(Array(head.utf8), on: channel)
        }
    }

    /// The body `/close-mid-body-no-length` sends before it closes.
    static let closeDelimitedBody: [UInt8] = Array("close-delimited body: these bytes, then the server closes".utf8)

    private static let gzipFields = ["Content-Type": "application/json", "Content-Encoding": "gzip"]

    private func storm(key: String, failures: Int, retryAfter: String?) -> [UInt8] {
        let attempt = self.stormCounters.withLockedValue { counters in
            counters[key, default: 0] += 1
            return counters[key, default: 0]
        }
        let json = ["Content-Type": "application/json"]
        guard attempt > failures else {
            let fields = retryAfter.map { json.merging(["Retry-After": $0]) { $1 } } ?? json
            return Self.response("503 Service Unavailable", fields, body: Array(#"{"error":"storm","attempt":\#(attempt)}"#.utf8))
        }
        return Self.response("200 OK", json, body: Array(#"{"key":"\#(key)","attempts":\#(attempt)}"#.utf8))
    }

    /// Closes `channel` with an RST: SO_LINGER on with a zero timeout makes `close` drop the connection.
    static func reset(_ channel: any Channel) {
        guard let provider = channel as? any SocketOptionProvider else { return channel.close(promise: nil) }
        provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in channel.close(promise: nil) }
    }
}
