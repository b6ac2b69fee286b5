import Foundation
import Parley
import ParleyDemoServer
import ParleyJSONRPC
import ParleyJSONRPCStdio
import Testing

@testable import ParleyTestSupport

/// `/bin/sh -c script` as a JSON-RPC child: a peer that ends in a way of our choosing.
func launchShell(_ script: String, framing: JSONRPCFraming = .newlineDelimited) throws -> JSONRPCStreamChannel {
    try JSONRPCStreamChannel.launch(executable: URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", script], framing: framing)
}

@Suite("JSON-RPC with a child process (launch, exit, shutdown)")
struct JSONRPCChildProcessTests {
    @Test(
        "a child that exits while calls wait fails each of them at once, with its exit status",
        arguments: [JSONRPCFraming.contentLength, .newlineDelimited]
    )
    func exitFailsPendingCalls(_ framing: JSONRPCFraming) async throws {
        // Reads its first line (a header, or a whole message), then exits 3 without answering.
        let child = try launchShell("read line; exit 3", framing: framing)
        let rpc = JSONRPCClient(channel: child)
        let failure = await expectParleyError(.transport) { try await rpc.call(Sum(params: [1, 2])) }
        #expect(failure?.message.contains("exited with status 3") == true, "\(String(describing: failure))")
        #expect(await child.waitForExit() == JSONRPCChildExit(code: 3))
        let later = await expectParleyError(.transport) { try await rpc.call(Sum(params: [1])) }
        #expect(later?.message.contains("closed") == true)
        await expectParleyError(.transport) { try await rpc.notify(NotifyHello(params: [1])) }
    }

    @Test("three calls in flight when the child exits: all three fail")
    func exitFailsSeveralCalls() async throws {
        let child = try launchShell("read a; read b; read c; exit 4")
        let rpc = JSONRPCClient(channel: child)
        try await withThrowingTaskGroup(of: ParleyError?.self) { group in
            for index in 0..<3 {
                group.addTask { await expectParleyError(.transport) { try await rpc.call(Sum(params: [index])) } }
            }
            var failures: [ParleyError] = []
            for try await failure in group { if let failure { failures.append(failure) } }
            #expect(failures.count == 3)
            #expect(failures.allSatisfy { $0.message.contains("exited with status 4") }, "\(failures)")
        }
    }

    @Test("a child killed by a signal: the calls' error says which")
    func killedBySignal() async throws {
        let child = try launchShell("read line; kill -KILL $$")
        let failure = await expectParleyError(.transport) { try await JSONRPCClient(channel: child).call(Sum(params: [1])) }
        #expect(failure?.message.contains("was killed by signal 9") == true, "\(String(describing: failure))")
        let exit = await child.waitForExit()
        #expect(exit?.bySignal == true && exit?.code == 9 && exit?.isSuccess == false)
    }

    @Test("a missing or non-executable program is a transport error before anything is sent")
    func cannotLaunch() async throws {
        let missing = URL(fileURLWithPath: "/nonexistent/parley-no-such-child")
        let error = #expect(throws: ParleyError.self) {
            try JSONRPCStreamChannel.launch(executable: missing, framing: .contentLength)
        }
        #expect(error?.kind == .transport)
        #expect(
            error?.message.contains("/nonexistent/parley-no-such-child: there is no such file") == true,
            "\(String(describing: error))"
        )
        #expect(error?.message.contains("Nothing was sent") == true)

        let notExecutable = #expect(throws: ParleyError.self) {
            try JSONRPCStreamChannel.launch(executable: URL(fileURLWithPath: "/etc/passwd"), framing: .newlineDelimited)
        }
        #expect(notExecutable?.kind == .transport)
        #expect(notExecutable?.message.contains("not an executable file") == true)
    }

    @Test("shutdown closes the child's input and returns its exit status")
    func shutdownClosesInput() async throws {
        let child = try launchShell("cat >/dev/null; exit 0")
        #expect(child.processIdentifier != nil)
        try await JSONRPCClient(channel: child).notify(NotifyHello(params: [7]))
        let exit = await child.shutdown()
        #expect(exit == JSONRPCChildExit(code: 0))
        #expect(exit?.isSuccess == true)
        #expect(exit?.description == "exited with status 0")
        await expectParleyError(.transport) { try await JSONRPCClient(channel: child).call(Sum(params: [1])) }
    }

    @Test("shutdown escalates: SIGTERM after the grace period, SIGKILL when that is ignored too")
    func shutdownEscalates() async throws {
        let stubborn = try launchShell("exec sleep 60")
        let terminated = await stubborn.shutdown(gracePeriod: .milliseconds(100))
        #expect(terminated == JSONRPCChildExit(code: 15, bySignal: true), "\(String(describing: terminated))")
        let deaf = try launchShell("trap '' TERM; exec sleep 60")
        let exit = await deaf.shutdown(gracePeriod: .milliseconds(100))
        #expect(exit == JSONRPCChildExit(code: 9, bySignal: true))
        #expect(exit?.description == "was killed by signal 9")
    }

    @Test("a channel on handles of yours launched nothing")
    func notLaunched() async throws {
        let pair = PipePair(framing: .newlineDelimited, serverRouter: DemoServer.jsonRPCRouter())
        defer { try? pair.close() }
        #expect(pair.client.processIdentifier == nil)
        #expect(await pair.client.waitForExit() == nil)
        #expect(await pair.client.shutdown() == nil)
    }

    @Test("writing to a reader that went away is a transport error, not a SIGPIPE that ends the process")
    func brokenPipe() async throws {
        let pipe = Pipe()
        try pipe.fileHandleForReading.close()
        let never = Pipe()
        let channel = JSONRPCStreamChannel(
            input: never.fileHandleForReading,
            output: pipe.fileHandleForWriting,
            framing: .contentLength
        )
        defer {
            channel.close()
            try? never.fileHandleForWriting.close()
        }
        let rpc = JSONRPCClient(channel: channel)
        let failure = await expectParleyError(.transport) { try await rpc.notify(NotifyHello(params: [1])) }
        #expect(failure?.message.contains("the reader closed its end") == true, "\(String(describing: failure))")
        await expectParleyError(.transport) { try await rpc.call(Sum(params: [1])) }
    }
}
