import Foundation
import Hummingbird
import NIOCore
import Parley
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
    private let server: TestServer
    private let folder: CommandScratchFolder

    private init(socketPath: String, server: TestServer, folder: CommandScratchFolder) {
        self.socketPath = socketPath
        self.server = server
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
        let router = Router(context: BasicRequestContext.self)
        router.on("v1.43/info", method: .get) { request, _ in
            SocketInfo(path: request.uri.path, host: request.head.authority, body: nil)
        }
        router.on("v1.43/info", method: .post) { request, _ in
            let body = try await request.body.collect(upTo: 1 << 20)
            return SocketInfo(path: request.uri.path, host: request.head.authority, body: String(buffer: body))
        }
        let server = try await TestServer.start(
            router,
            address: .unixDomainSocket(path: socketPath),
            label: "parley.unix-socket-server"
        )
        return UnixSocketServer(socketPath: socketPath, server: server, folder: folder)
    }

    func stop() async {
        await server.stop()
    }
}
