import Crypto
import Foundation
import Parley
import ParleyAsyncHTTPClient

/// The streaming steps of `parley demo`: an upload from a file with its progress, and Server-Sent Events read
/// across a dropped connection.
extension DemoWalkthrough {
    /// The size of the generated file the demo uploads.
    static let uploadSize = 32 << 20

    /// Uploads a generated file with a progress bar (or a line per quarter when standard output is not a terminal),
    /// then checks the server's byte count and SHA-256 against the file's.
    func upload(_ client: Client) async throws {
        print("→ POST /upload: a generated \(ByteCount.format(Int64(Self.uploadSize))) file streamed from disk, with progress")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("parley-demo-\(UUID().uuidString).bin")
        defer { try? FileManager.default.removeItem(at: file) }
        let digest = try Self.writeSample(to: file, bytes: Self.uploadSize)
        let style: ProgressDisplay.Style = Terminal.isOutputTerminal ? .bar : .quarters(label: "upload")
        let display = ProgressDisplay(style: style, write: Terminal.writeOutput, prefix: "  ")
        let start = ContinuousClock.now
        let transfer = client.upload(UploadSample(), fromFile: file)
        let shown = Task { await display.follow(transfer.progress, startedAt: start) }
        let report: UploadReport
        do {
            report = try await transfer.value
        } catch {
            _ = await shown.value
            throw error
        }
        let summary = await shown.value
        print(
            "  the server read \(report.bytes) bytes (Content-Length \(report.contentLength.map(String.init) ?? "none")) in "
                + "\(ByteCount.duration(summary.elapsed)), SHA-256 \(report.sha256)"
        )
        guard report.bytes == Self.uploadSize, report.sha256 == digest else {
            throw ParleyError(
                .validation,
                "The server read \(report.bytes) bytes with SHA-256 \(report.sha256); the file has "
                    + "\(Self.uploadSize) bytes with SHA-256 \(digest)."
            )
        }
        print("  same size and SHA-256 as the file here\n")
    }

    /// Reads `/sse`, which drops the connection after three events: the stream reconnects after the server's
    /// `retry` with `Last-Event-ID`, and the server continues from there.
    func serverSentEvents(_ url: URL) async throws {
        let client = Client(baseURL: url, middlewares: [ConnectionLog()] + middlewares)
        print("→ GET /sse?count=5&retry=100&dropAfter=3: Server-Sent Events, the server drops the connection after 3")
        for try await event in client.events(Ticks(count: 5, retry: 100, dropAfter: 3)) {
            print("  \(event.type) id \(event.lastEventID): \(event.data)")
        }
        print("  the stream ended (204 No Content: no events left)\n")
    }

    /// Writes `bytes` of a repeating 1 MiB pattern to `file` and returns their SHA-256 in hex.
    private static func writeSample(to file: URL, bytes: Int) throws -> String {
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
            throw ParleyError(.invalidRequest, "Cannot create the demo's upload file \(file.path).")
        }
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        var block = [UInt8](repeating: 0, count: 1 << 20)
        for index in block.indices {
            block[index] = UInt8(truncatingIfNeeded: (index &* 31) ^ (index >> 11))
        }
        var hasher = SHA256()
        var written = 0
        while written < bytes {
            let chunk = block.prefix(bytes - written)
            hasher.update(data: chunk)
            try handle.write(contentsOf: chunk)
            written += chunk.count
        }
        return hasher.finalize().map { byte in (byte < 16 ? "0" : "") + String(byte, radix: 16) }.joined()
    }
}

/// Prints each connection the demo's SSE client opens, with the `Last-Event-ID` it sends and the answer's status.
private struct ConnectionLog: ClientMiddleware {
    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let resume =
            HTTPField.Name("Last-Event-ID").flatMap { request.headerFields[$0] }.map { " with Last-Event-ID: \($0)" } ?? ""
        let (response, responseBody) = try await next(request, body, baseURL)
        print("  connected\(resume): \(response.status.code) \(response.status.reasonPhrase)")
        return (response, responseBody)
    }
}
