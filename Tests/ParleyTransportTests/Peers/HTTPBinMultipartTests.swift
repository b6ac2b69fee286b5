import Foundation
import Parley
import Testing

@testable import ParleyTestSupport

/// Multipart bodies parsed by an independent implementation: httpbin (Flask/Werkzeug's form parser).
@Suite(
    "Independent peer: httpbin multipart",
    .enabled(if: HTTPBin.url != nil, "scripts/test starts httpbin and sets PARLEY_HTTPBIN_URL")
)
struct HTTPBinMultipartTests {
    struct Parsed: Decodable, Sendable {
        let form: [String: String]
        let files: [String: String]
        let headers: [String: String]
    }

    struct PostForm: Endpoint {
        typealias Response = Parsed
        var method: HTTPRequest.Method { .post }
        var path: Path { "/anything" }
    }

    @Test(
        "text fields and a streamed file come out of Werkzeug's parser as sent, with our Content-Length",
        arguments: TransportKind.allCases
    )
    func form(_ transport: TransportKind) async throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let file = folder.file("notes.txt")
        let text = String(repeating: "line of notes ✓\r\n", count: 20_000)
        try Data(text.utf8).write(to: file)
        var form = MultipartForm()
        form.append("title", value: "Holiday ☀️")
        form.append("empty", value: "")
        form.append("inline", data: Data("in memory".utf8), filename: "inline.txt", contentType: "text/plain")
        try form.append("notes", file: file, contentType: "text/plain")
        let client = Client(baseURL: try #require(HTTPBin.url), transport: transport.makeTransport())
        let parsed = try await client.upload(PostForm(), body: .multipart(form)).value
        try await client.shutdown()
        #expect(parsed.form == ["title": "Holiday ☀️", "empty": ""])
        #expect(parsed.files["inline"] == "in memory")
        #expect(parsed.files["notes"] == text)
        #expect(parsed.headers["Content-Length"] == String(form.contentLength))
        #expect(parsed.headers["Content-Type"] == form.contentType)
    }
}
