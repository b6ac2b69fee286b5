import Foundation
import Parley
import Testing

@testable import ParleyTestSupport

@Suite("Multipart form uploads")
struct MultipartTests {
    struct Report: Decodable, Sendable {
        struct Part: Decodable, Sendable {
            let name: String
            let filename: String?
            let contentType: String?
            let bytes: Int
            let sha256: String
            let text: String?
            let rawDisposition: String?
        }
        let boundary: String
        let parts: [Part]
    }

    struct PostForm: Endpoint {
        typealias Response = Report
        var method: HTTPRequest.Method { .post }
        var path: Path { "/multipart" }
    }

    @Test(
        "text fields, bytes and a streamed file are parsed by the server as sent, with the computed length and escaped names",
        arguments: TransportKind.allCases
    )
    func form(_ transport: TransportKind) async throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let file = folder.file("photo.bin")
        let fileSize = 300_017  // the demo server's multipart parser is slow in debug builds
        try Pattern.write(fileSize, to: file)
        var form = MultipartForm()
        form.append("title", value: "Holiday ☀️")
        form.append("quote\"d", value: "line one\r\nline two")
        form.append("raw", data: Data([0, 1, 2, 255]), filename: "we\"ird\nname.dat", contentType: "application/x-raw")
        try form.append("photo", file: file, contentType: "image/x-test")
        let log = ProgressLog()
        try await withDemoClient(transport) { client, _ in
            let report = try await client.upload(PostForm(), body: .multipart(form), onProgress: log.record).value
            #expect(report.boundary == form.boundary)
            #expect(
                report.parts.map(\.name) == ["title", "quote\"d", "raw", "photo"]
                    || report.parts.map(\.name) == ["title", "quote%22d", "raw", "photo"]
            )
            #expect(report.parts[0].text == "Holiday ☀️")
            #expect(report.parts[1].text == "line one\r\nline two")
            #expect(report.parts[1].rawDisposition?.contains("name=\"quote%22d\"") == true)
            #expect(report.parts[2].bytes == 4)
            #expect(report.parts[2].contentType == "application/x-raw")
            #expect(report.parts[2].rawDisposition?.contains("filename=\"we%22ird%0Aname.dat\"") == true)
            #expect(report.parts[3].filename == "photo.bin")
            #expect(report.parts[3].contentType == "image/x-test")
            #expect(report.parts[3].bytes == fileSize)
            #expect(report.parts[3].sha256 == Pattern.sha256(fileSize))
        }
        log.expectMonotonic(endingAt: form.contentLength)
    }

    @Test("a chosen boundary that occurs in a part is refused before sending; a bad boundary is refused")
    func boundaryCollision() async throws {
        var form = try MultipartForm(boundary: "abc")
        form.append("field", value: "x\r\n--abc\r\ny")
        try await withDemoClient(.asyncHTTPClient) { client, _ in
            let error = await expectParleyError(.invalidRequest) {
                try await client.upload(PostForm(), body: .multipart(form)).value
            }
            #expect(error?.message.contains("contains the boundary") == true)
        }
        #expect(throws: ParleyError.self) { try MultipartForm(boundary: "has\r\nnewline") }
        #expect(throws: ParleyError.self) { try MultipartForm(boundary: String(repeating: "a", count: 71)) }
    }

    @Test("an empty form and a form of one empty file are well formed", arguments: TransportKind.allCases)
    func edges(_ transport: TransportKind) async throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let empty = folder.file("empty.txt")
        #expect(FileManager.default.createFile(atPath: empty.path, contents: Data()))
        var form = MultipartForm()
        try form.append("nothing", file: empty)
        try await withDemoClient(transport) { client, _ in
            let report = try await client.upload(PostForm(), body: .multipart(form)).value
            #expect(report.parts.count == 1)
            #expect(report.parts.first?.bytes == 0)
            #expect(report.parts.first?.filename == "empty.txt")
        }
    }
}
