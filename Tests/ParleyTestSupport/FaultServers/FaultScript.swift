import NIOCore

/// How the fault server misbehaves for one request, chosen by its path (see ``FaultServer`` for the routes).
enum FaultScript: Sendable, Equatable {
    /// `/ok`: a well-formed 200 with a short text body (a control case).
    case ok
    /// `/reset`: an RST right after the request, before any response byte.
    case reset
    /// `/close-mid-body?length=N`: `Content-Length: N`, half the body, then close.
    case closeMidBody(length: Int)
    /// `/close-mid-body-no-length`: no length, not chunked: some bytes, then close (a complete response).
    case closeMidBodyNoLength
    /// `/close-mid-chunked`: chunked, some chunks, then close without the last chunk.
    case closeMidChunked
    /// `/slow-headers?delay=MS`: nothing for `delay` ms, then a 200.
    case slowHeaders(delay: TimeAmount)
    /// `/slow-body`: the head and a few body bytes, then nothing until the client closes.
    case slowBody
    /// `/never-ends?interval=MS`: a chunked body that never ends; one chunk every `interval` ms, or as fast as the
    /// client reads without one.
    case neverEnds(interval: TimeAmount?)
    /// `/invalid-status-line`: `HTTP/1.1 abc Nope`.
    case invalidStatusLine
    /// `/invalid-json`: a 200 `application/json` whose body is cut JSON.
    case invalidJSON
    /// `/no-location`: a 302 without `Location`.
    case noLocation
    /// `/redirect-loop`: a 302 back to itself; `/redirect-loop?via=b`: a 302 to `/redirect-loop-b`, which sends
    /// a 302 back.
    case redirectLoop(to: String)
    /// `/storm?key=K&failures=N&retry-after=S`: 503 with `Retry-After: S` for the first `N` requests of key `K`,
    /// then 200.
    case storm(key: String, failures: Int, retryAfter: String?)
    /// `/gzip`: a 200 with a whole gzip body (`Content-Encoding: gzip`).
    case gzip
    /// `/truncated-gzip`: a 200 with `Content-Encoding: gzip` and a gzip stream cut before its end (its
    /// `Content-Length` matches the bytes sent).
    case truncatedGzip
    /// Any other path, or a query parameter out of range: 404 or 400 with a reason.
    case refuse(status: String, reason: String)
    /// `/dribble-head?interval=MS`: the status line, then header bytes one at a time, every `interval` ms (default
    /// 100), never ending the head.
    case dribbleHead(interval: TimeAmount)
    /// `/dribble-body?interval=MS`: a head, then body bytes one at a time, every `interval` ms (default 100).
    case dribbleBody(interval: TimeAmount)
    /// `/hostile/…`: an answer that attacks parsing and error messages (see ``HostileAnswer``).
    case hostile(HostileAnswer)
    /// The hostile framing and size routes (``HardeningScript``).
    case hardening(HardeningScript)
    /// `/websocket-silent`: a valid WebSocket upgrade (`101`, the right `Sec-WebSocket-Accept`), then nothing at all:
    /// no frame, no pong, no close, as a connection left half-open by a dead peer or a dropped NAT entry.
    case silentWebSocket(key: String)

    /// The script for `head`.
    init(_ head: FaultRequestHead) {
        let query = head.query
        func integer(_ name: String, default value: Int) -> Int? {
            guard let text = query.first(name) else { return value }
            guard let number = Int(text), (0...600_000).contains(number) else { return nil }
            return number
        }
        switch head.path {
        case "/ok": self = .ok
        case "/reset": self = .reset
        case "/close-mid-body":
            guard let length = integer("length", default: 1000), length >= 2 else {
                self = .refuse(status: "400 Bad Request", reason: "length must be an integer in 2...600000")
                return
            }
            self = .closeMidBody(length: length)
        case "/close-mid-body-no-length": self = .closeMidBodyNoLength
        case "/close-mid-chunked": self = .closeMidChunked
        case "/slow-headers":
            guard let delay = integer("delay", default: 5000) else {
                self = .refuse(status: "400 Bad Request", reason: "delay must be milliseconds in 0...600000")
                return
            }
            self = .slowHeaders(delay: .milliseconds(Int64(delay)))
        case "/slow-body": self = .slowBody
        case "/never-ends":
            guard let interval = integer("interval", default: 0) else {
                self = .refuse(status: "400 Bad Request", reason: "interval must be milliseconds in 0...600000")
                return
            }
            self = .neverEnds(interval: interval == 0 ? nil : .milliseconds(Int64(interval)))
        case "/invalid-status-line": self = .invalidStatusLine
        case "/invalid-json": self = .invalidJSON
        case "/no-location": self = .noLocation
        case "/redirect-loop": self = .redirectLoop(to: query.first("via") == "b" ? "/redirect-loop-b" : "/redirect-loop")
        case "/redirect-loop-b": self = .redirectLoop(to: "/redirect-loop?via=b")
        case "/storm":
            guard let failures = integer("failures", default: 2) else {
                self = .refuse(status: "400 Bad Request", reason: "failures must be an integer in 0...600000")
                return
            }
            self = .storm(key: query.first("key") ?? "", failures: failures, retryAfter: query.first("retry-after"))
        case "/websocket-silent":
            guard let key = head.fields.first(where: { $0.name.lowercased() == "sec-websocket-key" })?.value else {
                self = .refuse(status: "400 Bad Request", reason: "a WebSocket upgrade needs Sec-WebSocket-Key")
                return
            }
            self = .silentWebSocket(key: key)
        case "/gzip": self = .gzip
        case "/truncated-gzip": self = .truncatedGzip
        case "/dribble-head", "/dribble-body":
            guard let interval = integer("interval", default: 100), interval > 0 else {
                self = .refuse(status: "400 Bad Request", reason: "interval must be milliseconds in 1...600000")
                return
            }
            let every = TimeAmount.milliseconds(Int64(interval))
            self = head.path == "/dribble-head" ? .dribbleHead(interval: every) : .dribbleBody(interval: every)
        case let path where path.hasPrefix("/hostile/"):
            self =
                HostileAnswer(path: path).map { .hostile($0) }
                ?? .refuse(status: "404 Not Found", reason: "no hostile route \(path)")
        default:
            if let script = HardeningScript(head) {
                self = .hardening(script)
            } else {
                self = .refuse(status: "404 Not Found", reason: "no fault route \(head.path)")
            }
        }
    }
}
