import Foundation
import HTTPTypes
import OpenAPIRuntime
import Parley
import Synchronization
import Testing

@testable import ParleyTestSupport

@Suite("Uploads from file")
struct UploadTests {
    static let size = Pattern.largeTransferSize

    @Test(
        "a large file (64 MiB) arrives whole (SHA-256 on the server), with Content-Length and monotonic progress",
        arguments: TransportKind.allCases
    )
    func largeUpload(_ transport: TransportKind) async throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let file = folder.file("large.bin")
        try Pattern.write(Self.size, to: file)
        let log = ProgressLog()
        try await withDemoClient(transport) { client, _ in
            let upload = client.upload(Upload(), fromFile: file, contentType: "application/x-test", onProgress: log.record)
            // The sequence sees the same updates (the newest ones, if it falls behind), ending with the total.
            let sequence = Task {
                var last: TransferProgress?
                for await progress in upload.progress { last = progress }
                return last
            }
            let report = try await upload.value
            #expect(report.bytes == Self.size)
            #expect(report.sha256 == Pattern.sha256(Self.size))
            #expect(report.contentLength == Self.size)
            #expect(report.contentType == "application/x-test")
            #expect(await sequence.value?.completedBytes == Int64(Self.size))
        }
        log.expectMonotonic(endingAt: Int64(Self.size))
    }

    @Test("a missing file fails before anything is sent, naming the file", arguments: TransportKind.allCases)
    func missingFile(_ transport: TransportKind) async throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let missing = folder.file("nope.bin")
        try await withDemoClient(transport) { client, _ in
            let error = await expectParleyError(.invalidRequest) { try await client.upload(Upload(), fromFile: missing).value }
            #expect(error?.message.contains(missing.path) == true)
            #expect(error?.message.contains("No such file") == true)
            #expect(error?.response == nil)
            let directory = await expectParleyError(.invalidRequest) {
                try await client.upload(Upload(), fromFile: folder.url).value
            }
            #expect(directory?.message.contains("not a regular file") == true)
        }
    }

    @Test(
        "a file that shrinks while it is sent fails the upload instead of sending a short body",
        arguments: TransportKind.allCases
    )
    func fileChangesSize(_ transport: TransportKind) async throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let file = folder.file("changing.bin")
        try Pattern.write(8 << 20, to: file)
        let truncated = Mutex(false)
        try await withDemoClient(transport) { client, _ in
            // After the first chunk is taken, the file is cut to 1 MiB: the next read comes up short.
            let upload = client.upload(Upload(), fromFile: file) { progress in
                guard progress.completedBytes > 0 else { return }
                truncated.withLock { done in
                    guard !done else { return }
                    done = true
                    _ = truncate(file.path, 1 << 20)
                }
            }
            let error = await expectParleyError(.invalidRequest) { try await upload.value }
            #expect(error?.message.contains("changed while it was being sent") == true, "\(String(describing: error))")
        }
    }

    @Test(
        "the file body is replayable: a middleware that sends the request twice sends the whole file twice",
        arguments: TransportKind.allCases
    )
    func replay(_ transport: TransportKind) async throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let file = folder.file("twice.bin")
        try Pattern.write(3 << 20, to: file)
        let counter = SendTwice()
        try await withDemoClient(transport, middlewares: [counter]) { client, _ in
            let report = try await client.upload(Upload(), fromFile: file).value
            #expect(report.bytes == 3 << 20)
            #expect(report.sha256 == Pattern.sha256(3 << 20))
        }
        #expect(counter.firstBytes.withLock { $0 } == 3 << 20)
    }

    @Test("RequestBody.file in an endpoint streams the file with its size", arguments: TransportKind.allCases)
    func endpointFileBody(_ transport: TransportKind) async throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let file = folder.file("body.bin")
        try Pattern.write(300_000, to: file)
        try await withDemoClient(transport) { client, _ in
            let report = try await client.send(FileUpload(file: file))
            #expect(report.bytes == 300_000)
            #expect(report.contentLength == 300_000)
            #expect(report.sha256 == Pattern.sha256(300_000))
        }
    }
}

/// `POST /upload` with a file body declared by the endpoint.
struct FileUpload: Endpoint {
    typealias Response = UploadReport
    let file: URL
    var method: HTTPRequest.Method { .post }
    var path: Path { "/upload" }
    var body: RequestBody { .file(file) }
}

/// Sends every request twice and returns the second answer; records what the first one reported.
final class SendTwice: ClientMiddleware, Sendable {
    let firstBytes = Mutex(0)

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let (_, firstBody) = try await next(request, body, baseURL)
        let data = try await Data(collecting: firstBody ?? HTTPBody(), upTo: 1 << 20)
        let report = try JSONDecoder().decode(UploadReport.self, from: data)
        firstBytes.withLock { $0 = report.bytes }
        return try await next(request, body, baseURL)
    }
}
