import ArgumentParser
import Foundation
import Logging
import Parley
import ParleyAsyncHTTPClient
import ParleyDemoServer

/// `parley demo`: starts the embedded demo server and walks through typed calls.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Start the embedded demo server on 127.0.0.1 and walk through typed calls against it.",
        discussion: "With --serve, only run the server (printing its URL) until interrupted."
    )

    @Flag(help: "Only run the demo server until interrupted (Ctrl-C), for trying Parley or curl against it.")
    var serve = false

    @Option(help: "The port to listen on (0 picks a free one).")
    var port = 0

    @Option(
        help: ArgumentHelp(
            "Log every request of the walkthrough to standard error at this level: "
                + Logger.Level.allCases.map(\.rawValue).joined(separator: ", ") + " (headers at debug, bodies at trace).",
            valueName: "level"
        ),
        transform: { text in
            guard let level = Logger.Level(rawValue: text.lowercased()) else {
                throw ValidationError(
                    "'\(text)' is not a log level: use " + Logger.Level.allCases.map(\.rawValue).joined(separator: ", ") + "."
                )
            }
            return level
        }
    )
    var logLevel: Logger.Level?

    func run() async throws {
        if serve {
            try await DemoServer.run(port: port) { port, webSocketPort in
                // Written unbuffered, so a script reading a pipe sees the URL at once.
                let line =
                    "Parley demo server listening on http://127.0.0.1:\(port) (Ctrl-C to stop)\n"
                    + "JSON-RPC: POST http://127.0.0.1:\(port)/rpc, WebSocket ws://127.0.0.1:\(webSocketPort)/rpc/ws\n"
                FileHandle.standardOutput.write(Data(line.utf8))
            }
            return
        }
        var middlewares: [any ClientMiddleware] = []
        if let logLevel {
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = logLevel
                return handler
            }
            middlewares.append(.logging(Logger(label: "parley.demo")))
        }
        let server = try await DemoServer.start(port: port)
        do {
            try await DemoWalkthrough(baseURL: server.baseURL, webSocketURL: server.webSocketURL, middlewares: middlewares).run()
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
