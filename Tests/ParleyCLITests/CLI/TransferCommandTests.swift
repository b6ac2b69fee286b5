import Foundation
import Parley
import ParleyDemoServer
import Testing

@testable import ParleyTestSupport

/// `parley upload` and `parley download` as a person runs them: the built executable against an in-process demo
/// server, with standard output and standard error captured (not terminals, so no progress bar).
@Suite(
    "parley upload and parley download as child processes",
    .enabled(if: ParleyRun.executable != nil, "needs the built parley executable (PARLEY_BIN, or next to the test bundle)")
)
struct TransferCommandTests {
    @Test("parley upload streams a file and prints the server's answer exactly as received, with a summary on stderr")
    func upload() async throws {
        let file = try CommandInputFile(bytes: (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try await withDemoClient(.asyncHTTPClient) { _, server in
            let run = try await ParleyRun(["upload", "\(server.baseURL)/upload", file.path])
            #expect(run.status == 0, "\(run.error)")
            let answer = try JSONSerialization.jsonObject(with: run.output) as? [String: Any]
            #expect(answer?["bytes"] as? Int == 100_000)
            #expect(answer?["contentLength"] as? Int == 100_000)
            #expect(answer?["contentType"] as? String == "application/octet-stream")
            #expect(
                !String(decoding: run.output, as: UTF8.self).contains("\n  "),
                "piped output is the body as received, not re-indented"
            )
            #expect(run.error.hasPrefix("uploaded 97.7 KiB (100000 bytes) in "), "\(run.error)")
            #expect(!run.error.contains("\r"), "no progress bar when standard error is not a terminal")
        }
    }

    @Test("parley upload sends the URL's path and query, --method, --content-type and --header")
    func uploadOptions() async throws {
        let file = try CommandInputFile(bytes: Array("hello, parley".utf8))
        try await withDemoClient(.asyncHTTPClient) { _, server in
            let run = try await ParleyRun([
                "upload", "--method", "put", "--content-type", "text/plain; charset=utf-8", "--header", "X-Parley-Test: one two",
                "\(server.baseURL)/echo?a=1&b=x%20y", file.path,
            ])
            #expect(run.status == 0, "\(run.error)")
            let echo = try JSONSerialization.jsonObject(with: run.output) as? [String: Any]
            #expect(echo?["method"] as? String == "PUT")
            #expect(echo?["path"] as? String == "/echo")
            #expect(echo?["queryItems"] as? [[String]] == [["a", "1"], ["b", "x y"]])
            #expect(echo?["body"] as? String == "hello, parley")
            let headers = echo?["headers"] as? [[String]] ?? []
            #expect(headers.contains { $0.first?.lowercased() == "x-parley-test" && $0.last == "one two" }, "\(headers)")
            #expect(
                headers.contains { $0.first?.lowercased() == "content-type" && $0.last == "text/plain; charset=utf-8" },
                "\(headers)"
            )
        }
    }

    @Test("parley download writes exactly the bytes served, and a summary on stderr")
    func download() async throws {
        let folder = try CommandScratchFolder()
        let destination = folder.path + "/bytes.bin"
        try await withDemoClient(.asyncHTTPClient) { _, server in
            let run = try await ParleyRun(["download", "\(server.baseURL)/download?n=300000", destination])
            #expect(run.status == 0, "\(run.error)")
            #expect(run.output.isEmpty)
            let written = try Data(contentsOf: URL(fileURLWithPath: destination))
            #expect(written == Data((0..<300_000).map { UInt8($0 % 251) }))
            #expect(run.error.hasPrefix("downloaded 293.0 KiB (300000 bytes) to \(destination) in "), "\(run.error)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["bytes.bin"], "no partial file left")
        }
    }

    @Test("parley download --resume continues a download cut by the server (--header X-Cut-After), byte for byte")
    func resume() async throws {
        let folder = try CommandScratchFolder()
        let destination = folder.path + "/cut.bin"
        try await withDemoClient(.asyncHTTPClient) { _, server in
            // The first response is cut after (at most) 100,000 bytes; the second asks for the same URL from there.
            let url = "\(server.baseURL)/download?n=250000"
            let first = try await ParleyRun(["download", "--header", "X-Cut-After: 100000", url, destination])
            #expect(first.status != 0)
            #expect(first.error.contains("resume"), "\(first.error)")
            #expect(!FileManager.default.fileExists(atPath: destination), "no truncated file under the final name")
            let second = try await ParleyRun(["download", "--resume", url, destination])
            #expect(second.status == 0, "\(second.error)")
            #expect(second.error.contains(", resumed after "), "\(second.error)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: destination)) == Data((0..<250_000).map { UInt8($0 % 251) }))
        }
    }

    @Test("parley upload of a missing file fails before sending, naming the file")
    func missingFile() async throws {
        let folder = try CommandScratchFolder()
        let missing = folder.path + "/no-such-file.bin"
        try await withDemoClient(.asyncHTTPClient) { _, server in
            let run = try await ParleyRun(["upload", "\(server.baseURL)/upload", missing])
            #expect(run.status != 0)
            #expect(run.error.contains(missing), "\(run.error)")
            #expect(run.error.contains("invalidRequest"), "\(run.error)")
            #expect(run.output.isEmpty)
        }
    }

    @Test("a 404 fails parley upload and parley download, with the status on stderr and no file left behind")
    func notFound() async throws {
        let folder = try CommandScratchFolder()
        let file = try CommandInputFile(bytes: Array(repeating: 1, count: 1000))
        try await withDemoClient(.asyncHTTPClient) { _, server in
            let upload = try await ParleyRun(["upload", "\(server.baseURL)/no-such-route", file.path])
            #expect(upload.status != 0)
            #expect(upload.error.contains("404"), "\(upload.error)")
            let download = try await ParleyRun(["download", "\(server.baseURL)/no-such-route", folder.path + "/out.bin"])
            #expect(download.status != 0)
            #expect(download.error.contains("404"), "\(download.error)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        }
    }

    @Test("a URL that is not absolute http is refused before anything happens")
    func badURL() async throws {
        let file = try CommandInputFile(bytes: [1, 2, 3])
        let run = try await ParleyRun(["upload", "/upload", file.path])
        #expect(run.status != 0)
        #expect(run.error.contains("not an absolute http:// or https:// URL"), "\(run.error)")
    }
}

/// A file holding `bytes` in its own temporary folder, removed when the value is released.
struct CommandInputFile {
    let folder: CommandScratchFolder
    var path: String { folder.path + "/upload.bin" }

    init(bytes: [UInt8]) throws {
        folder = try CommandScratchFolder()
        try Data(bytes).write(to: URL(fileURLWithPath: folder.path + "/upload.bin"))
    }
}
