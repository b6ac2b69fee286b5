import Foundation
import Parley
import ParleyURLSession

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What the demo server's `POST /upload` answers.
struct UploadReport: Decodable, Sendable {
    let bytes: Int
    let sha256: String
}

/// `POST /upload`; the body comes from `client.upload(_:fromFile:)`.
struct UploadFile: Endpoint {
    typealias Response = UploadReport
    var method: HTTPRequest.Method { .post }
    var path: Path { "/upload" }
}

/// `GET /download?n=COUNT` (`/bytes?n=COUNT` on a server without `/download`): COUNT pattern bytes.
struct DownloadBytes: Endpoint {
    typealias Response = Void
    let route: String
    let count: Int
    var path: Path { "/\(route)" }
    var query: Query { ["n": String(count)] }
}

/// The files and routes of the transfer workloads: one file of `size` bytes in a temporary folder, made once.
struct TransferSetup: Sendable {
    let baseURL: URL
    let size: Int
    let folder: URL
    /// The file every upload sends.
    let source: URL
    /// `download`, or `bytes` when the server has no `/download` route yet (same pattern bytes).
    let downloadRoute: String

    /// Makes the folder and the file (a 1 MiB block of pattern bytes written over and over) and finds the route.
    static func make(baseURL: URL, size: Int, probe client: Client) async throws -> TransferSetup {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-bench-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let source = folder.appendingPathComponent("upload.bin")
        guard FileManager.default.createFile(atPath: source.path, contents: nil) else {
            throw BenchError.usage("cannot create \(source.path)")
        }
        let handle = try FileHandle(forWritingTo: source)
        let block = Data((0..<(1 << 20)).map { UInt8($0 % 251) })
        var written = 0
        while written < size {
            let length = min(block.count, size - written)
            try handle.write(contentsOf: length == block.count ? block : block.prefix(length))
            written += length
        }
        try handle.close()
        let route: String
        do {
            try await client.send(DownloadBytes(route: "download", count: 16))
            route = "download"
        } catch {
            route = "bytes"
        }
        return TransferSetup(baseURL: baseURL, size: size, folder: folder, source: source, downloadRoute: route)
    }

    var downloadURL: String { baseURL.absoluteString + "/\(downloadRoute)?n=\(size)" }

    /// A fresh path in the folder for one downloaded file.
    func destination(_ name: String) -> URL { folder.appendingPathComponent(name) }

    func remove() {
        try? FileManager.default.removeItem(at: folder)
    }

    /// The URLSession transport as a user who transfers files would set it up: its own sessions (which
    /// stream), no response cache (so a 1 GiB body is not copied into one).
    static func urlSessionTransport(backPressure: Bool = false) -> URLSessionTransport {
        URLSessionTransport(configuration: urlSessionConfiguration(), backPressure: backPressure)
    }

    static func urlSessionConfiguration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return configuration
    }

    /// Parley uploads the file; the server's report must count every byte.
    func upload(with client: Client) async throws {
        let report = try await client.upload(UploadFile(), fromFile: source).value
        guard report.bytes == size else { throw BenchError.mismatch("the server received \(report.bytes) of \(size) bytes") }
    }

    /// Parley downloads `size` bytes to a file, which is removed afterwards (outside the timing of the caller
    /// only if the caller times the call alone; the removal is cheap next to the transfer).
    func download(with client: Client, to destination: URL) async throws {
        let result = try await client.download(DownloadBytes(route: downloadRoute, count: size), to: destination).value
        guard result.bytes == Int64(size) else { throw BenchError.mismatch("downloaded \(result.bytes) of \(size) bytes") }
    }

    /// `curl -T` streams the file (`--data-binary @FILE` would read it into memory first); `Expect:` off, so
    /// curl does not wait for a `100 Continue` the server may not send.
    func curlUpload() async throws {
        let output = try await Curl.run([
            "-sS", "--fail", "-X", "POST", "-H", "Expect:", "-H", "Content-Type: application/octet-stream",
            "-T", source.path, "-o", "-", baseURL.absoluteString + "/upload",
        ])
        let report = try JSONDecoder().decode(UploadReport.self, from: output)
        guard report.bytes == size else {
            throw BenchError.mismatch("the server received \(report.bytes) of \(size) bytes from curl")
        }
    }

    func curlDownload(to destination: URL) async throws {
        _ = try await Curl.run(["-sS", "--fail", "-o", destination.path, downloadURL])
        let length = try FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? Int
        guard length == size else { throw BenchError.mismatch("curl downloaded \(length ?? -1) of \(size) bytes") }
    }
}

/// Foundation's URLSession used directly (a download task, an upload task from the file), no Parley: for the
/// `diagnostic-…-rawurlsession-…` rows, which separate FoundationNetworking's own cost from the transport's.
extension TransferSetup {
    func rawURLSessionDownload(_ session: URLSession, to destination: URL) async throws {
        guard let url = URL(string: downloadURL) else { throw BenchError.usage(downloadURL) }
        let (location, response) = try await session.download(from: url)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw BenchError.status(-1) }
        try FileManager.default.moveItem(at: location, to: destination)
        let length = try FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? Int
        guard length == size else { throw BenchError.mismatch("URLSession downloaded \(length ?? -1) of \(size) bytes") }
    }

    func rawURLSessionUpload(_ session: URLSession) async throws {
        guard let url = URL(string: baseURL.absoluteString + "/upload") else { throw BenchError.usage("upload URL") }
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        let (data, response) = try await session.upload(for: request, fromFile: source)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw BenchError.status(-1) }
        let report = try JSONDecoder().decode(UploadReport.self, from: data)
        guard report.bytes == size else {
            throw BenchError.mismatch("the server received \(report.bytes) of \(size) bytes from URLSession")
        }
    }
}

/// curl as a child process (it inherits this process's CPU affinity, so it runs on the client's core).
enum Curl {
    static let path = "/usr/bin/curl"

    /// Runs curl and returns its standard output (kept small by the callers: a JSON report or nothing).
    static func run(_ arguments: [String]) async throws -> Data {
        let (status, output) = try await ChildProcess.run(URL(fileURLWithPath: path), arguments)
        guard status == 0 else { throw BenchError.mismatch("curl \(arguments.joined(separator: " ")) exited with \(status)") }
        return output
    }
}

/// Runs a child process to its end and collects its standard output, which must fit in a pipe's buffer (64 KiB:
/// it is read once the child has exited); standard error is passed through.
enum ChildProcess {
    static func run(_ executable: URL, _ arguments: [String]) async throws -> (Int32, Data) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            process.terminationHandler = { _ in continuation.resume() }
            do {
                try process.run()
            } catch {
                continuation.resume(throwing: error)
            }
        }
        try? output.fileHandleForWriting.close()
        return (process.terminationStatus, output.fileHandleForReading.readDataToEndOfFile())
    }
}
