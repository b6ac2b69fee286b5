/// Fault-server answers that attack the client's parsing and error messages rather than its connection: routes
/// under `/hostile/`.
///
/// - `/hostile/deep-json/N`: `200`, `application/json`, `N` nested arrays (`[[[…]]]`, `N` in 1...1 000 000).
/// - `/hostile/control-bytes`: `500` whose reason phrase (ESC, DEL), `Content-Type` (a bidi override) and body
///   (NUL, CR LF, ESC, DEL, C1 controls, bidi overrides) hold text a log must not show raw
///   (``FaultServer/controlBytesForgedLine`` is a forged log line inside the body).
/// - `/hostile/rpc-strays/N`: `200`, a JSON-RPC batch answer of `N` results (`N` in 1...1 000 000) whose ids
///   (1 000 000 and up) match no call.
/// - `/hostile/rpc-error-control`: `200`, a JSON-RPC error object for id 1 whose message holds ESC, CR LF and a
///   bidi override.
enum HostileAnswer: Sendable, Equatable {
    case deepJSON(depth: Int)
    case controlBytes
    case rpcStrays(count: Int)
    case rpcErrorControl

    /// The answer for `path`, `nil` when it is not a `/hostile/` route (or its number is out of range).
    init?(path: String) {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 3, parts[0].isEmpty, parts[1] == "hostile" else { return nil }
        func number() -> Int? {
            guard parts.count == 4, let value = Int(parts[3]), (1...1_000_000).contains(value) else { return nil }
            return value
        }
        switch parts[2] {
        case "deep-json":
            guard let depth = number() else { return nil }
            self = .deepJSON(depth: depth)
        case "control-bytes" where parts.count == 3:
            self = .controlBytes
        case "rpc-strays":
            guard let count = number() else { return nil }
            self = .rpcStrays(count: count)
        case "rpc-error-control" where parts.count == 3:
            self = .rpcErrorControl
        default:
            return nil
        }
    }

    /// The whole response, ending with `Connection: close`.
    var bytes: [UInt8] {
        switch self {
        case .deepJSON(let depth):
            let body = [UInt8](repeating: UInt8(ascii: "["), count: depth) + [UInt8](repeating: UInt8(ascii: "]"), count: depth)
            return FaultResponder.response("200 OK", ["Content-Type": "application/json"], body: body)
        case .controlBytes:
            var head = Array("HTTP/1.1 500 Bad\u{1B}[31m \u{7F}Thing\r\n".utf8)
            head += Array("Content-Type: text/plain; charset=\u{202E}8-ftu\r\n".utf8)
            head += Array("Content-Length: \(Self.controlBody.count)\r\nConnection: close\r\n\r\n".utf8)
            return head + Self.controlBody
        case .rpcStrays(let count):
            var body: [UInt8] = [UInt8(ascii: "[")]
            body.reserveCapacity(count * 48)
            for index in 0..<count {
                if index > 0 { body.append(UInt8(ascii: ",")) }
                body += Array(#"{"jsonrpc":"2.0","result":0,"id":\#(1_000_000 + index)}"#.utf8)
            }
            body.append(UInt8(ascii: "]"))
            return FaultResponder.response("200 OK", ["Content-Type": "application/json"], body: body)
        case .rpcErrorControl:
            let forged = Self.forgedLine.replacing("\"", with: #"\""#)
            let body = #"{"jsonrpc":"2.0","error":{"code":-32000,"message":"bad\u001b[31m\r\n\#(forged)\u202e"},"id":1}"#
            return FaultResponder.response("200 OK", ["Content-Type": "application/json"], body: Array(body.utf8))
        }
    }

    /// A log line a hostile server would like to forge.
    static let forgedLine = "level=info msg=\"user admin logged in\""

    /// NUL, CR LF and a forged line, ESC sequences, DEL, C1 controls (U+0085, U+009B) and bidi overrides, all
    /// valid UTF-8.
    static let controlBody: [UInt8] =
        Array("oops\u{0}\r\n\(forgedLine)\u{1B}[2K\u{7F}\u{85}\u{9B}31m \u{202E}gnp.exe\u{2066}x\u{2069} end".utf8)
}
