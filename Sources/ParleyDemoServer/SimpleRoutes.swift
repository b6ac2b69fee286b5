import HTTPTypes
import Hummingbird
import NIOCore

/// Routes with fixed responses: text, odd bodies, repeated headers and a truncated body.
enum SimpleRoutes {
    /// Registers `/text`, `/invalid-utf8`, `/empty`, `/no-content`, `/json-null`, `/html`,
    /// `/headers/multi` and `/close-mid-body` on `router`.
    static func register(on router: Router<DemoRequestContext>) {
        router.get("text") { _, _ in DemoResponses.text("hello, parley") }
        router.get("invalid-utf8") { _, _ in
            DemoResponses.raw(ByteBuffer(bytes: [0x68, 0x69, 0xFF, 0xFE]), contentType: DemoResponses.textContentType)
        }
        router.get("empty") { _, _ in Response(status: .ok, body: ResponseBody()) }
        router.get("no-content") { _, _ in
            var response = Response(status: .noContent)
            response.headers[.contentLength] = nil
            return response
        }
        router.get("json-null") { _, _ in
            DemoResponses.raw(ByteBuffer(string: "null"), contentType: DemoResponses.jsonContentType)
        }
        router.get("html") { _, _ in
            DemoResponses.raw(ByteBuffer(string: "<html></html>"), contentType: "text/html")
        }
        router.get("headers/multi") { _, _ in self.multiHeaderResponse() }
        router.get("close-mid-body") { _, _ in self.closeMidBodyResponse() }
    }

    /// 200 with two `Set-Cookie` and two `X-Multi` fields and body `{"ok":true}`.
    private static func multiHeaderResponse() -> Response {
        var response = DemoResponses.raw(ByteBuffer(string: "{\"ok\":true}"), contentType: DemoResponses.jsonContentType)
        response.headers.append(HTTPField(name: .setCookie, value: "a=1"))
        response.headers.append(HTTPField(name: .setCookie, value: "b=2"))
        if let multi = HTTPField.Name("X-Multi") {
            response.headers.append(HTTPField(name: multi, value: "one"))
            response.headers.append(HTTPField(name: multi, value: "two"))
        }
        return response
    }

    /// Announces 1000 bytes, sends 100, then drops the connection.
    private static func closeMidBodyResponse() -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "application/octet-stream"],
            body: ResponseBody(contentLength: 1000) { writer in
                try await writer.write(ByteBuffer(repeating: UInt8(ascii: "x"), count: 100))
                // Give the event loop time to flush the partial body before the connection is closed.
                try await Task.sleep(for: .milliseconds(50))
                // Throwing from a body writer makes Hummingbird close the connection.
                throw DemoServerError.intentionalAbort
            }
        )
    }
}
