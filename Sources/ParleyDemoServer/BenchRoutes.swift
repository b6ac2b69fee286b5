import Hummingbird
import NIOCore

/// Fixed, cheap routes for the side-by-side benchmarks: the server's cost is the same for every client.
enum BenchRoutes {
    /// A ~200-byte JSON object (an `Item` in the benchmarks).
    static let object = ByteBuffer(
        string: #"{"id":42,"name":"Parley benchmark item","email":"bench@example.com","active":true,"#
            + #""score":98.5,"tags":["alpha","beta","gamma"],"createdAt":"2026-11-23T08:00:00Z","#
            + #""note":"a fixed object of about two hundred bytes"}"#
    )

    /// Registers `GET /bench/object` (the object) and `POST /bench/object` (reads the body, answers the object).
    static func register(on router: Router<DemoRequestContext>) {
        router.get("bench/object") { _, _ in
            DemoResponses.raw(object, contentType: DemoResponses.jsonContentType)
        }
        router.post("bench/object") { request, _ in
            for try await _ in request.body {}
            return DemoResponses.raw(object, contentType: DemoResponses.jsonContentType)
        }
    }
}
