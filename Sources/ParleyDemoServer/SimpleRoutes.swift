import HTTPTypes
import Hummingbird
import NIOCore

/// Routes with fixed responses: text, odd bodies, repeated headers and a truncated body.
enum SimpleRoutes {
    /// Registers `/text`, `/invalid-utf8`, `/empty`, `/no-content`, `/json-null`, `/html`,
    /// `/headers/multi`, `/report` (cacheable, with an ETag) and `/close-mid-body` on `router`.
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
        // A cacheable report: fresh for a minute, then revalidated with its ETag (304 when it matches).
        router.get("report") { request, _ -> Response in
            if request.headers[.ifNoneMatch] == "\"report-1\"" {
                var notModified = Response(status: .notModified)
                notModified.headers[.eTag] = "\"report-1\""
                notModified.headers[.cacheControl] = "max-age=60"
                return notModified
            }
            var response = DemoResponses.raw(
                ByteBuffer(string: #"{"title":"Quarterly report","pages":12}"#),
                contentType: DemoResponses.jsonContentType
            )
            response.headers[.eTag] = "\"report-1\""
            response.headers[.cacheControl] = "max-age=60"
            return response
        }
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
