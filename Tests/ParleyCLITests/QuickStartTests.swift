import Foundation
import Parley
import ParleyDemoServer
import ParleyJSONRPCStdio
import Testing

@testable import ParleyTestSupport

/// The README's Quick start (Examples/QuickStart/main.swift, the same lines as the README's block, which
/// scripts/check-readme compares) is a complete program: built as the `QuickStart` executable, run as a process against
/// the demo server at the address it names, as a reader runs it after `swift run parley demo --serve --port 8080`.
@Suite(
    "README Quick start: the built program against the demo server on port 8080",
    .enabled(if: QuickStartProgram.executable != nil, "needs the built QuickStart executable (next to the parley one)"),
    .timeLimit(.minutes(2))
)
struct QuickStartTests {
    @Test("it prints the user it got, the user it created, and a readable 404")
    func runsAgainstTheDemoServer() async throws {
        let executable = try #require(QuickStartProgram.executable)
        let server: DemoServer
        do {
            server = try await DemoServer.start(port: QuickStartProgram.port)
        } catch {
            let message =
                "The Quick start talks to http://127.0.0.1:\(QuickStartProgram.port), as the README says, but the demo server "
                + "cannot listen there (\(error)): is another program (a `parley demo --serve --port 8080`?) using the port?"
            Issue.record(Comment(rawValue: message))
            return
        }
        let run: (exit: JSONRPCChildExit, output: String, error: String)
        do {
            run = try await QuickStartProgram.run(executable)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()

        #expect(run.exit == JSONRPCChildExit(code: 0), "QuickStart ended with \(run.exit): \(run.error)")
        let lines = run.output.split(separator: "\n").map(String.init)
        let expected = [
            "GET /users/1 -> Ada Lovelace ada@example.com",
            "POST /users -> 201 3 Grace Hopper",
            "GET /users/99 -> unacceptableStatus",
            "Parley unacceptableStatus error for GET http://127.0.0.1:8080/users/99: The server answered 404 Not Found, "
                + "but GetUser accepts only 200…299. Response: 404 Not Found, Content-Type application/json; charset=utf-8. "
                + #"Body: {"error":"user 99 not found"}"#,
        ]
        #expect(lines == expected, "QuickStart printed:\n\(run.output)\nstandard error:\n\(run.error)")
    }
}

/// The built Quick start and how to run it.
enum QuickStartProgram {
    /// The address the program names (`http://127.0.0.1:8080`).
    static let port = 8080

    /// `QuickStart`, built next to the `parley` executable (`PARLEY_BIN`, or the build folder of the test bundle).
    static let executable: URL? = ParleyRun.executable.map { $0.deletingLastPathComponent().appendingPathComponent("QuickStart") }
        .flatMap { FileManager.default.isExecutableFile(atPath: $0.path) ? $0 : nil }

    /// Runs the program to its end, terminating it (and recording an issue) if it is still running after 60 s.
    static func run(_ executable: URL) async throws -> (exit: JSONRPCChildExit, output: String, error: String) {
        let folder = try CommandScratchFolder()
        let output = folder.path + "/stdout"
        let error = folder.path + "/stderr"
        let exit = try await runGuarded(
            executable.path,
            [],
            output: output,
            error: error,
            hangGuard: .seconds(60),
            name: "QuickStart"
        )
        return (
            exit,
            String(decoding: try Data(contentsOf: URL(fileURLWithPath: output)), as: UTF8.self),
            String(decoding: try Data(contentsOf: URL(fileURLWithPath: error)), as: UTF8.self)
        )
    }
}
