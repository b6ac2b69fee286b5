import Foundation
import Logging
import Parley
import ParleyDemoServer
import Testing

// What the `DocC…` suites of this target use around the articles' samples, never in them: scripts/check-docs fails
// when a sample uses a name declared in a *Support*.swift file of this folder (or in Tests/ParleyTestSupport, which
// this target cannot see). The articles' Swift blocks (Sources/*/*.docc) are compiled, line for line, by the other
// files of this folder, and run against the demo server on 127.0.0.1. An article declares `baseURL` as the demo
// server a reader starts (`http://127.0.0.1:8080`, compiled by DocCDemoServerAddressTests.swift); the suites run
// the samples with a `baseURL` of their own demo server, on a free port.

/// Runs `body` with a fresh demo server and its base URL, stopping the server afterwards.
@discardableResult
func withDocServer<T>(_ body: (URL, DemoServer) async throws -> T) async throws -> T {
    let server = try await DemoServer.start()
    do {
        let result = try await body(try #require(URL(string: server.baseURL)), server)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}

/// A fresh folder under the temporary directory, removed after `body`.
func withTemporaryFolder<T>(_ body: (URL) async throws -> T) async throws -> T {
    let folder = FileManager.default.temporaryDirectory.appending(path: "parley-docc-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    return try await body(folder)
}

/// Endpoints the suites use in checks of their own, outside the articles' samples.
enum DocCShared {
    /// The demo server's `/auth/me`: `{"subject": "demo", "token": "<number>"}` for the current bearer token.
    struct WhoAmI: Endpoint {
        typealias Response = [String: String]
        var path: Path { "/auth/me" }
    }
}

/// A value that callbacks of a suite's checks fill in, from any thread.
final class LockedBox<Value: Sendable>: Sendable {
    private let lock = NSLock()
    nonisolated(unsafe) private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.withLock { stored } }
    func mutate<T>(_ body: (inout Value) -> T) -> T { lock.withLock { body(&stored) } }
}

/// A swift-log handler that keeps every record, for the Observability suite's checks of the lines it logs.
final class LogRecorder: Sendable {
    /// One log record, the handler's and the call's metadata merged.
    struct Record: Sendable {
        let level: Logger.Level
        let message: String
        let metadata: Logger.Metadata
        let error: (any Error)?

        /// The metadata value for `key`, as text.
        subscript(_ key: String) -> String? { metadata[key].map { "\($0)" } }

        /// Everything the record shows: message, metadata and error, to check that a secret appears nowhere.
        var everything: String {
            ([message] + metadata.map { "\($0.key)=\($0.value)" } + [error.map { "\($0)" } ?? ""]).joined(separator: "\n")
        }
    }

    private let stored = LockedBox<[Record]>([])

    /// The records so far.
    var records: [Record] { stored.value }

    /// A logger at `level` writing into this recorder.
    func logger(level: Logger.Level) -> Logger {
        var logger = Logger(label: "parley.docc") { _ in Handler(recorder: self) }
        logger.logLevel = level
        return logger
    }

    private struct Handler: LogHandler {
        let recorder: LogRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
            let record = Record(level: event.level, message: "\(event.message)", metadata: merged, error: event.error)
            recorder.stored.mutate { $0.append(record) }
        }
    }
}
