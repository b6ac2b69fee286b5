import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime
import Parley
import ParleyAsyncHTTPClient
import ParleyDemoServer
import ParleyJSONRPC
import ParleyTesting
import ParleyURLSession
import Testing

// Declarations that more than one test target uses, moved out of the suites that introduced them.

/// A tiny lock box for tests.
final class LockedBox<Value: Sendable>: Sendable {
    private let lock = NSLock()
    nonisolated(unsafe) private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.withLock { stored } }
    func mutate<T>(_ body: (inout Value) -> T) -> T { lock.withLock { body(&stored) } }
}

/// One finished run of the `parley` executable.
struct ParleyRun {
    /// The executable: `PARLEY_BIN` (exported by `scripts/test`), or `parley` next to the test bundle in the build
    /// folder (`swift build --build-tests` builds both).
    static let executable: URL? = {
        if let path = ProcessInfo.processInfo.environment["PARLEY_BIN"] { return URL(fileURLWithPath: path) }
        let folders =
            [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(), Bundle.main.bundleURL]
            + Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
        return folders.map { $0.appendingPathComponent("parley") }.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    let status: Int32
    let output: Data
    let error: String

    /// `script`, which runs a command on a pseudo-terminal (util-linux), if this machine has it.
    static let script: URL? = ["/usr/bin/script", "/bin/script"].map(URL.init(fileURLWithPath:))
        .first { FileManager.default.isExecutableFile(atPath: $0.path) }

    /// Runs `parley arguments…` to the end, its standard output and error going to files (no pipe to fill up), or
    /// with `onTerminal` both on a pseudo-terminal through ``script`` (whose output, in the output file, has CR LF
    /// line ends). `environment` changes the inherited environment (`nil` removes a variable). A run still going
    /// after `hangGuard` is terminated (SIGTERM) and recorded as an issue.
    init(
        _ arguments: [String],
        onTerminal: Bool = false,
        environment: [String: String?] = [:],
        hangGuard: Duration = .seconds(90)
    ) async throws {
        let executable = try #require(Self.executable)
        let folder = try CommandScratchFolder()
        let outputURL = URL(fileURLWithPath: folder.path + "/stdout")
        let errorURL = URL(fileURLWithPath: folder.path + "/stderr")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        let process = Process()
        if onTerminal {
            let quoted = ([executable.path] + arguments).map { "'" + $0.replacing("'", with: #"'\''"#) + "'" }
            guard let script = Self.script else {
                Issue.record("util-linux `script` is not installed: cannot run parley on a pseudo-terminal")
                throw CancellationError()
            }
            process.executableURL = script
            process.arguments = ["-qec", "exec " + quoted.joined(separator: " "), "/dev/null"]
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
        process.standardInput = FileHandle.nullDevice
        if !environment.isEmpty {
            var inherited = ProcessInfo.processInfo.environment
            for (name, value) in environment { inherited[name] = value }
            process.environment = inherited
        }
        process.standardOutput = try FileHandle(forWritingTo: outputURL)
        process.standardError = try FileHandle(forWritingTo: errorURL)
        let hung = LockedState<Task<Bool, Never>?>(nil)
        status = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
                let pid = process.processIdentifier
                hung.withLock { $0 = Task { (try? await Task.sleep(for: hangGuard)) != nil && kill(pid, SIGTERM) == 0 } }
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        if let guardTask = hung.withLock({ $0 }) {
            guardTask.cancel()
            let fired = await guardTask.value
            #expect(!fired, "parley \(arguments.joined(separator: " ")) was still running after \(hangGuard); terminated")
        }
        output = try Data(contentsOf: outputURL)
        error = String(decoding: try Data(contentsOf: errorURL), as: UTF8.self)
    }
}

/// Records every retry event.
final class RetryLog: Sendable {
    private let events = LockedBox<[RetryEvent]>([])
    var all: [RetryEvent] { events.value }
    var record: @Sendable (RetryEvent) -> Void { { event in self.events.mutate { $0.append(event) } } }
}

/// The demo server's Basic credentials (a colon and a non-ASCII character in the password).
enum DemoBasicAuth {
    static let user = "ada"
    static let password = "Analytical:Engine ✓ 1843"
}

/// A folder under the system's temporary directory, removed when the value is released.
final class CommandScratchFolder: Sendable {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("parley-cli-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
