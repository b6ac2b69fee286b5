import Foundation
import Parley
import ParleyJSONRPC
import ParleyJSONRPCStdio
import Testing

@testable import ParleyTestSupport

/// The built `parley` executable; `scripts/test` exports its path after `swift build`.
enum ParleyBinary {
    static let path = ProcessInfo.processInfo.environment["PARLEY_BIN"]
}

@Suite(
    "parley serve-stdio as a child process",
    .enabled(if: ParleyBinary.path != nil, "scripts/test exports PARLEY_BIN, the built parley executable")
)
struct ServeStdioCommandTests {
    @Test(
        "the demo router over the child's stdin and stdout, then a clean exit when its input ends",
        arguments: [JSONRPCFraming.contentLength, .newlineDelimited]
    )
    func demoRouter(_ framing: JSONRPCFraming) async throws {
        let server = try JSONRPCStreamChannel.launch(
            executable: URL(fileURLWithPath: try #require(ParleyBinary.path)),
            arguments: ["serve-stdio", "--framing", framing == .contentLength ? "content-length" : "newline"],
            standardError: FileHandle.nullDevice,
            framing: framing
        )
        let rpc = JSONRPCClient(channel: server)
        #expect(try await rpc.call(Subtract(params: [42, 23])) == 19)
        #expect(try await rpc.call(SubtractNamed(params: .init(minuend: 42, subtrahend: 23))) == 19)
        let text: JSONValue = .string("ü€ \"quoted\" \\ 😀 \n tab\t")
        #expect(try await rpc.call(EchoRPC(params: [text])) == .array([text]))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<100 {
                group.addTask {
                    let sum = try await rpc.call(Sum(params: [index, 1]))
                    #expect(sum == index + 1)
                }
            }
            try await group.waitForAll()
        }
        let (sum, data) = try await rpc.batchValues(Sum(params: [1, 2, 4]), GetDataRPC())
        #expect(sum == 7 && data == [.string("hello"), .int(5)])
        let unknown = await expectParleyError(.jsonRPCError) { try await rpc.call(Unknown()) }
        #expect(unknown?.jsonRPCError?.code == -32601)
        try await rpc.notify(NotifyHello(params: [7]))
        #expect(await server.shutdown() == JSONRPCChildExit(code: 0))
    }
}
