import Foundation
import Hummingbird
import Logging
import NIOCore
import Parley
import ParleyDemoServer
import ParleyJSONRPC
import ServiceLifecycle
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

/// A server of a suite's own on 127.0.0.1 that counts the requests it receives, so that a check can tell one shared
/// request from two, or one batch from two calls.
///
/// - `GET` of any path: the JSON that `answer` makes from the GET's number (1 for the first), so that two requests
///   get different answers. The first GET is held until a second one arrives, or for `hold`: identical calls made
///   together are in flight together, and a second request sent while the first is held is answered at once.
/// - `POST /rpc`: a JSON-RPC router with `sum` and `subtract` (of an array of numbers), which answers batches.
final class CountingServer: Sendable {
    /// The server's address: `http://127.0.0.1:PORT`.
    let baseURL: URL
    private let hits: LockedBox<Int>
    private let group: ServiceGroup
    private let task: Task<Void, Never>

    /// The requests received so far.
    var count: Int { hits.value }

    private init(baseURL: URL, hits: LockedBox<Int>, group: ServiceGroup, task: Task<Void, Never>) {
        self.baseURL = baseURL
        self.hits = hits
        self.group = group
        self.task = task
    }

    deinit { task.cancel() }

    /// Runs `body` with a fresh server that answers its `n`-th GET with `answer(n)` (JSON).
    static func run<T>(
        hold: Duration = .seconds(1),
        answer: @escaping @Sendable (Int) -> String = { _ in "{}" },
        _ body: (CountingServer) async throws -> T
    ) async throws -> T {
        let server = try await start(hold: hold, answer: answer)
        do {
            let result = try await body(server)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    private static func start(hold: Duration, answer: @escaping @Sendable (Int) -> String) async throws -> CountingServer {
        let hits = LockedBox(0)
        let gets = LockedBox(0)
        let (second, secondArrived) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        var rpc = JSONRPCRouter()
        rpc.register("sum") { (numbers: [Int]) in numbers.reduce(0, +) }
        rpc.register("subtract") { (numbers: [Int]) in numbers.dropFirst().reduce(numbers.first ?? 0, -) }
        let router = Router()
        router.post("rpc") { [rpc] request, _ -> Response in
            hits.mutate { $0 += 1 }
            let message = try await request.body.collect(upTo: 1 << 20)
            let answer = await rpc.handle(Data(message.readableBytesView)) ?? Data()
            var response = Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer)))
            response.headers[.contentType] = "application/json"
            return response
        }
        router.get("**") { _, _ -> Response in
            hits.mutate { $0 += 1 }
            let number = gets.mutate { count -> Int in
                count += 1
                return count
            }
            if number == 1 {
                // Until a second request arrives, or `hold` ends.
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { for await _ in second { return } }
                    group.addTask { try? await Task.sleep(for: hold) }
                    await group.next()
                    group.cancelAll()
                }
            } else {
                secondArrived.yield()
            }
            var response = Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(string: answer(number))))
            response.headers[.contentType] = "application/json"
            return response
        }
        var logger = Logger(label: "parley.docc.counting-server")
        logger.logLevel = .warning
        let (listening, continuation) = AsyncThrowingStream<Int, any Error>.makeStream()
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) },
            logger: logger
        )
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [app], logger: logger))
        let task = Task<Void, Never> {
            do {
                try await group.run()
                continuation.finish(throwing: CancellationError())
            } catch {
                continuation.finish(throwing: error)
            }
        }
        do {
            for try await port in listening {
                let baseURL = try #require(URL(string: "http://127.0.0.1:\(port)"))
                return CountingServer(baseURL: baseURL, hits: hits, group: group, task: task)
            }
            throw CancellationError()
        } catch {
            task.cancel()
            await task.value
            throw error
        }
    }

    private func stop() async {
        await group.triggerGracefulShutdown()
        await task.value
    }
}
