import Foundation
import Parley
import Testing

@testable import ParleyJSONRPC
@testable import ParleyTestSupport

/// `MCPStreamableHTTPChannel` against a ``ScriptedMCPServer`` that abuses it: a flood of requests on a call's event
/// stream, a new session whose `initialize` never answers.
@Suite("MCP Streamable HTTP: limits that hold against the server", .timeLimit(.minutes(1)))
struct MCPStreamableHTTPLimitTests {
    /// The most requests of the server the flooded channel has in flight at once (`maxServerRequests`; 1024 by default,
    /// lower here so that the answers are few to wait for under ThreadSanitizer).
    static let bound = 64
    /// The server's requests on one event stream: the issue's 20,000, and 2,000 under ThreadSanitizer (ten times slower
    /// there; still 30 times the bound).
    static let flood = ProcessInfo.processInfo.environment["PARLEY_SANITIZER"] == "thread" ? 2_000 : 20_000
    /// The most answers a channel posts at once.
    static let senders = MCPServerRequests.senders

    /// Runs `body` with a fresh server following `script`, a channel posting to its `/mcp` through a client on
    /// `transport` with `router`, and an MCP client on that channel whose calls wait at most 30 s by default; then
    /// closes the channel and stops both.
    func withScriptedServer(
        _ script: MCPScript,
        _ transport: TransportKind,
        router: JSONRPCRouter? = nil,
        maxServerRequests: Int = 1024,
        _ body: (MCPStreamableHTTPChannel, MCPClient, ScriptedMCPServer) async throws -> Void
    ) async throws {
        let server = try await ScriptedMCPServer.start(script)
        let client = Client(baseURL: try server.baseURL, transport: transport.makeTransport())
        let channel = MCPStreamableHTTPChannel(
            client: client,
            path: "/mcp",
            router: router,
            maxServerRequests: maxServerRequests
        )
        do {
            let mcp = MCPClient(channel: channel, timeout: .seconds(30))
            let initialized = try await mcp.rpc.call(
                MCPInitialize(
                    protocolVersion: MCPClient.latestProtocolVersion,
                    clientInfo: MCPImplementation(name: "parley-tests", version: "1.0")
                )
            )
            try await mcp.rpc.notify(JSONRPCDynamicMethod("notifications/initialized"))
            // Connected in the handshake era, as MCPClient.initialize leaves it, without its GET stream.
            mcp.state.connected(MCPClient.description(of: initialized))
            try await body(channel, mcp, server)
        } catch {
            await channel.close()
            try? await client.shutdown()
            await server.stop()
            throw error
        }
        await channel.close()
        try await client.shutdown()
        await server.stop()
    }

    @Test(
        "20,000 pings on a call's event stream, answers held: the call is answered, 64 pings handled, 64 refused",
        arguments: TransportKind.allCases
    )
    func requestFlood(transport: TransportKind) async throws {
        var router = JSONRPCRouter()
        router.register("ping") { () in [:] as JSONValue }
        try await withScriptedServer(.requestFlood(count: Self.flood), transport, router: router, maxServerRequests: Self.bound) {
            channel,
            mcp,
            server in
            // The answer comes after the 20,000 pings, while the server holds every answer POST it got.
            let result = try await mcp.callTool("flooded")
            #expect(result.structuredContent?["via"] == "sse")
            let held = server.pingAnswers
            #expect(held.maxInFlight <= Self.senders, "answer POSTs at once while held: \(held)")

            // Once the server answers them, the handled pings' answers come, and the refusals.
            server.releaseAnswers()
            await server.waitForPingAnswers { $0.results >= Self.bound && $0.refusals >= Self.bound }
            await channel.close()
            let answers = server.pingAnswers
            // Every slot was taken while the server held the answers, and none freed: exactly the bound handled.
            #expect(answers.results == Self.bound, "\(answers)")
            #expect(answers.others == 0, "\(answers)")
            // At most the bound of refusals waits to be sent, besides those the senders hold: the rest was dropped.
            #expect(answers.refusals <= Self.bound + Self.senders, "\(answers)")
            #expect(answers.maxInFlight <= Self.senders, "\(answers)")
        }
    }

    @Test(
        "after a 404, a new session whose initialize hangs: the call times out in its own time; the next call renews",
        arguments: TransportKind.allCases
    )
    func hangingRenewal(transport: TransportKind) async throws {
        try await withScriptedServer(.hangingRenewal, transport) { channel, mcp, server in
            // No cancellation notice: it would start a new session of its own, racing the next call's.
            let rpc = JSONRPCClient(channel: channel, timeout: .seconds(30), cancellation: nil)
            let clock = ContinuousClock()
            let start = clock.now
            let error = await expectParleyError(.timeout) {
                try await rpc.call(MCPCallTool(name: "echo", arguments: [:]), timeout: .seconds(1))
            }
            #expect(error?.message.contains("timeout of 1.0 seconds") == true, "\(error?.message ?? "")")
            // Not a synchronisation: the new session's initialize is held until released, and without the call's
            // deadline the call waited for the transport's idle timeout (60 s).
            #expect(clock.now - start < .seconds(20))

            // The session is still lost: the next call starts a new one, which the server now answers.
            server.releaseAnswers()
            let result = try await mcp.callTool("echo")
            #expect(result.structuredContent?["via"] == "json")
            // A new session (the initialize the call gave up may still have reached the server, and got one too).
            let session = try #require(channel.sessionID)
            #expect(session != "session-1")
            #expect(server.posts.last?.rpcMethod == "tools/call")
            #expect(server.posts.last?.sessionID == session)
        }
    }
}
