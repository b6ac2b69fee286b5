import Foundation
import Hummingbird
import Logging
import NIOCore
import Parley
import ServiceLifecycle
import Testing

/// What the Unix-socket server answers.
struct SocketInfo: Codable, Sendable, Equatable, ResponseEncodable {
    let path: String
    let host: String?
    let body: String?
}

/// A Hummingbird server listening on a Unix domain socket in a scratch folder, as the Docker daemon does.
final class UnixSocketServer: Sendable {
    let socketPath: String
    private let task: Task<Void, Never>
    private let folder: CommandScratchFolder

    private init(socketPath: String, task: Task<Void, Never>, folder: CommandScratchFolder) {
        self.socketPath = socketPath
        self.task = task
        self.folder = folder
    }

    /// `http+unix://` and the socket's path, percent-encoded as the host.
    var baseURL: URL {
        get throws {
            let host = socketPath.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? socketPath
            return try #require(URL(string: "http+unix://\(host)"))
        }
    }

    static func start() async throws -> UnixSocketServer {
        let folder = try CommandScratchFolder()
        let socketPath = folder.path + "/api.sock"
        var logger = Logger(label: "parley.unix-socket-server")
        logger.logLevel = .warning
        let router = Router(context: BasicRequestContext.self)
        router.on("v1.43/info", method: .get) { request, _ in
            SocketInfo(path: request.uri.path, host: request.head.authority, body: nil)
        }
        router.on("v1.43/info", method: .post) { request, _ in
            let body = try await request.body.collect(upTo: 1 << 20)
            return SocketInfo(path: request.uri.path, host: request.head.authority, body: String(buffer: body))
        }
        let (listening, continuation) = AsyncThrowingStream<Void, any Error>.makeStream()
        let app = Application(
            router: router,
            configuration: .init(address: .unixDomainSocket(path: socketPath)),
            onServerRunning: { _ in continuation.yield() },
            logger: logger
        )
        let group = ServiceGroup(configuration: .init(services: [.init(service: app)], logger: logger))
        let task = Task<Void, Never> {
            do {
                try await group.run()
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        for try await _ in listening { return UnixSocketServer(socketPath: socketPath, task: task, folder: folder) }
        task.cancel()
        throw ParleyError(.transport, "the Unix socket server stopped before it listened")
    }

    func stop() async {
        task.cancel()
        await task.value
    }
}
