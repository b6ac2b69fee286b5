import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime
import Parley
import ParleyAsyncHTTPClient
import ParleyDemoServer
import ParleyJSONRPC
import ParleyJSONRPCStdio
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
    static let executable: URL? = built("parley", overriddenBy: "PARLEY_BIN")

    /// The test tooling's `parley-probe` (Tests/ParleyProbes): `PARLEY_PROBE_BIN`, or next to the test bundle.
    static let probeExecutable: URL? = built("parley-probe", overriddenBy: "PARLEY_PROBE_BIN")

    /// The executable `name` of this package: the path in the environment variable `variable`, or `name` next to the
    /// test bundle in the build folder.
    static func built(_ name: String, overriddenBy variable: String) -> URL? {
        if let path = ProcessInfo.processInfo.environment[variable] { return URL(fileURLWithPath: path) }
        let folders =
            [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(), Bundle.main.bundleURL]
            + Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
        return folders.map { $0.appendingPathComponent(name) }.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

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
        let path: String
        let spawnArguments: [String]
        if onTerminal {
            let quoted = ([executable.path] + arguments).map { "'" + $0.replacing("'", with: #"'\''"#) + "'" }
            guard let script = Self.script else {
                Issue.record("util-linux `script` is not installed: cannot run parley on a pseudo-terminal")
                throw CancellationError()
            }
            path = script.path
            spawnArguments = ["-qec", "exec " + quoted.joined(separator: " "), "/dev/null"]
        } else {
            path = executable.path
            spawnArguments = arguments
        }
        var inherited: [String: String]?
        if !environment.isEmpty {
            var variables = ProcessInfo.processInfo.environment
            for (name, value) in environment { variables[name] = value }
            inherited = variables
        }
        let exit = try await runGuarded(
            path,
            spawnArguments,
            environment: inherited,
            output: outputURL.path,
            error: errorURL.path,
            hangGuard: hangGuard,
            name: "parley \(arguments.joined(separator: " "))"
        )
        status = exit.code
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

/// ``runToEnd(_:_:environment:output:error:started:)`` with a watchdog: a child still running after `hangGuard` is
/// terminated (SIGTERM) and recorded as an issue naming it. (The watchdog's sleep bounds a hung child; it synchronises
/// nothing: the run ends when the child does.)
func runGuarded(
    _ path: String,
    _ arguments: [String],
    environment: [String: String]? = nil,
    output: String,
    error: String,
    hangGuard: Duration,
    name: String
) async throws -> JSONRPCChildExit {
    let hung = LockedState<Task<Bool, Never>?>(nil)
    let exit = try await runToEnd(path, arguments, environment: environment, output: output, error: error) { pid in
        hung.withLock { $0 = Task { (try? await Task.sleep(for: hangGuard)) != nil && kill(pid, SIGTERM) == 0 } }
    }
    if let guardTask = hung.withLock({ $0 }) {
        guardTask.cancel()
        let fired = await guardTask.value
        #expect(!fired, "\(name) was still running after \(hangGuard); terminated")
    }
    return exit
}

/// Runs `path arguments…` to the end, standard input from `/dev/null`, standard output and error appended to the files
/// `output` and `error` (the same file for both is fine); `started` gets its process identifier. Spawned as the library
/// spawns its children (`Spawn`), not with Foundation's `Process`, whose `run()` crashes the test process now and then
/// on Linux (swift-corelibs-foundation #5472).
func runToEnd(
    _ path: String,
    _ arguments: [String],
    environment: [String: String]? = nil,
    output: String,
    error: String,
    started: (Int32) -> Void = { _ in }
) async throws -> JSONRPCChildExit {
    let input = open("/dev/null", O_RDONLY | O_CLOEXEC)
    let outputDescriptor = open(output, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
    let errorDescriptor = open(error, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
    defer { for descriptor in [input, outputDescriptor, errorDescriptor] where descriptor >= 0 { close(descriptor) } }
    guard input >= 0, outputDescriptor >= 0, errorDescriptor >= 0 else {
        throw ParleyError(.transport, "Cannot open the files for \(path): \(String(cString: strerror(errno)))")
    }
    let (exits, continuation) = AsyncStream.makeStream(of: JSONRPCChildExit.self)
    let pid = try Spawn.start(
        path,
        arguments: arguments,
        environment: environment,
        currentDirectory: nil,
        standardInput: input,
        standardOutput: outputDescriptor,
        standardError: errorDescriptor
    )
    Spawn.watch(pid) { exit in
        continuation.yield(exit)
        continuation.finish()
    }
    started(pid)
    for await exit in exits { return exit }
    throw ParleyError(.transport, "\(path) (pid \(pid)) ended without an exit status")
}
