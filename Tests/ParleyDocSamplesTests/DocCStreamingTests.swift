// swift-format-ignore-file
// Laid out line for line as the swift blocks of the article it compiles (scripts/check-docs).
import Foundation
import Parley
import ParleyAsyncHTTPClient
import ParleyDemoServer
import Testing

// The Swift blocks of Sources/Parley/Parley.docc/Streaming.md, compiled and run against the demo server.
enum DocCStreaming {
    struct UploadReceipt: Decodable, Sendable {
        let bytes: Int
        let sha256: String
    }

    struct UploadFile: Endpoint {
        typealias Response = UploadReceipt
        var method: HTTPRequest.Method { .post }
        var path: Path { "/upload" }
    }

    struct UploadForm: Endpoint {
        typealias Response = JSONValue
        var method: HTTPRequest.Method { .post }
        var path: Path { "/multipart" }
    }

    struct DownloadArchive: Endpoint {
        typealias Response = Void
        var path: Path { "/download" }
        var query: Query { ["n": "4194304"] }
    }

    struct ExportItems: Endpoint {
        typealias Response = Void
        var path: Path { "/ndjson" }
        var query: Query { ["count": "3"] }
    }

    struct Item: Decodable, Sendable {
        let n: Int
        let name: String
    }

    struct Ticks: Endpoint {
        typealias Response = Void
        var path: Path { "/sse" }
        var query: Query { ["count": "3", "retry": "100"] }
    }
}

extension DocCStreaming {
    @Suite("DocC: Streaming", .timeLimit(.minutes(1)))
    struct Examples {
        @Test("an upload from a file with progress, and a multipart form")
        func uploads() async throws {
            try await withDocServer { baseURL, _ in
                let client = Client(baseURL: baseURL)
let folder = URL.temporaryDirectory.appending(path: "parley-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
let file = folder.appending(path: "photo.jpg")
try Data(repeating: 7, count: 4 << 20).write(to: file)   // 4 MiB to upload
let destination = folder.appending(path: "archive.bin")   // where a download goes
                defer { try? FileManager.default.removeItem(at: folder) }
                #expect(destination.lastPathComponent == "archive.bin")
                do {
                    let upload = client.upload(UploadFile(), fromFile: file, contentType: "application/octet-stream")
                    for await progress in upload.progress {
                        print(progress)   // 1048576 of 4194304 bytes (25%) …
                    }
                    let receipt = try await upload.value
                    print(receipt.bytes)   // 4194304
                    #expect(receipt.bytes == 4_194_304)

                    var form = MultipartForm()
                    form.append("title", value: "Holiday")
                    try form.append("photo", file: file, contentType: "image/jpeg")
                    let report = try await client.upload(UploadForm(), body: .multipart(form)).value
                    print(report["parts"]?[1]?["filename"]?.stringValue ?? "")   // photo.jpg
                    #expect(report["parts"]?[0]?["text"]?.stringValue == "Holiday")
                    #expect(report["parts"]?[1]?["filename"]?.stringValue == "photo.jpg")
                    #expect(report["parts"]?[1]?["bytes"]?.intValue == 4_194_304)
                }
            }
        }

        @Test("a download to a file that can resume")
        func download() async throws {
            try await withDocServer { baseURL, _ in
                try await withTemporaryFolder { folder in
                    let client = Client(baseURL: baseURL)
                    let destination = folder.appending(path: "archive.bin")
                    let download = client.download(DownloadArchive(), to: destination, resume: true)
                    for await progress in download.progress { print(progress.fractionCompleted ?? 0) }
                    let saved = try await download.value
                    print(saved.bytes, saved.resumedFrom, saved.location.lastPathComponent)   // 4194304 0 archive.bin
                    #expect(saved.bytes == 4_194_304 && saved.resumedFrom == 0)
                    #expect(try Data(contentsOf: destination).count == 4_194_304)
                }
            }
        }

        @Test("a streamed response read by lines and by JSON lines; Server-Sent Events across a reconnection")
        func streams() async throws {
            try await withDocServer { baseURL, _ in
                let client = Client(baseURL: baseURL)
                let export = try await client.stream(ExportItems())
                print(export.response.headerFields[.contentType] ?? "")   // application/x-ndjson
                for try await line in export.body.lines() {
                    print(line)   // {"n":0,"name":"item-0"} …
                }

                for try await item in try await client.stream(ExportItems()).body.jsonLines(of: Item.self) {
                    print(item.n, item.name)   // 0 item-0 …
                }
                var lines: [String] = []
                for try await line in try await client.stream(ExportItems()).body.lines() { lines.append(line) }
                #expect(lines == [#"{"n":0,"name":"item-0"}"#, #"{"n":1,"name":"item-1"}"#, #"{"n":2,"name":"item-2"}"#])
                var names: [String] = []
                for try await item in try await client.stream(ExportItems()).body.jsonLines(of: Item.self) { names.append(item.name) }
                #expect(names == ["item-0", "item-1", "item-2"])

                for try await event in client.events(Ticks()) {
                    print(event.type, event.lastEventID, event.data)   // tick 0 {"n":0} …
                }
                var events: [ServerSentEvent] = []
                for try await event in client.events(Ticks()) { events.append(event) }
                #expect(events.map(\.lastEventID) == ["0", "1", "2"])
                #expect(events.first == ServerSentEvent(type: "tick", data: #"{"n":0}"#, lastEventID: "0"))
            }
        }
    }
}
