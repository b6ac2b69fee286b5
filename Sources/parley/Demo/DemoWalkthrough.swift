import Parley
import ParleyAsyncHTTPClient
import ParleyJSONRPC
import ParleyJSONRPCWebSocket

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The steps `parley demo` prints: typed calls, an empty response, and failures with their descriptions.
struct DemoWalkthrough {
    let baseURL: String
    let webSocketURL: String
    /// Added to every client of the walkthrough (`--log-level` adds a logging middleware); none by default.
    var middlewares: [any ClientMiddleware] = []

    func run() async throws {
        guard let url = URL(string: baseURL) else { throw ParleyError(.invalidRequest, "bad demo URL \(baseURL)") }
        let client = Client(baseURL: url, headers: ["User-Agent": "parley-demo/1.0"], middlewares: middlewares)
        print("Parley demo against \(baseURL)\n")

        print("→ GET /users")
        let users = try await client.send(ListUsers())
        print(users.map { "  \($0)" }.joined(separator: "\n") + "\n")

        print("→ GET /users/1")
        print("  \(try await client.send(GetUser(id: 1)))\n")

        print("→ POST /users {\"name\":\"Grace Hopper\",…}")
        let created = try await client.send(CreateUser(user: NewUser(name: "Grace Hopper", email: "grace@example.com")))
        print("  created \(created)\n")

        print("→ PUT /users/\(created.id)")
        let renamed = NewUser(name: "Rear Admiral Grace Hopper", email: "grace@example.com")
        print("  updated \(try await client.send(UpdateUser(id: created.id, user: renamed)))\n")

        let (_, head) = try await client.response(for: DeleteUser(id: created.id))
        print("→ DELETE /users/\(created.id)\n  \(head.status.code) \(head.status.reasonPhrase), no body (Response == Void)\n")

        print("→ GET /users/99 (a failure: the user does not exist)")
        await showFailure { try await client.send(GetUser(id: 99)) }
        print("→ GET /users/1/profile (a failure: required JSON keys are missing)")
        await showFailure { try await client.send(GetProfile(id: 1)) }
        try await jsonRPC(url)
        try await upload(client)
        try await serverSentEvents(url)
        try await resilience(url)
        print("Done.")
    }

    /// A JSON-RPC call, a batch answered in any order and matched by id, and an error object.
    private func jsonRPC(_ url: URL) async throws {
        let rpc = JSONRPCClient(http: Client(baseURL: url, middlewares: middlewares), path: "/rpc")
        print("→ JSON-RPC subtract [42, 23] over POST /rpc")
        print("  \(try await rpc.call(Subtract(params: [42, 23])))\n")
        print("→ JSON-RPC batch: sum [1, 2, 4], subtract {minuend: 42, subtrahend: 23}, get_data")
        let (sum, difference, data) = try await rpc.batchValues(
            Sum(params: [1, 2, 4]),
            SubtractNamed(params: .init(minuend: 42, subtrahend: 23)),
            GetData()
        )
        print("  \(sum), \(difference), \(data)\n")
        print("→ JSON-RPC foobar (a failure: the method does not exist)")
        await showFailure { try await rpc.call(JSONRPCDynamicMethod("foobar")) }
        try await serverPush()
    }

    /// Server push over a WebSocket: a subscription's notifications as an AsyncSequence, continuing across a
    /// dropped connection (the channel reconnects and subscribes again).
    private func serverPush() async throws {
        print("→ JSON-RPC over WebSocket \(webSocketURL): subscribe [\"prices\"], reconnecting after a drop")
        let channel = try await JSONRPCWebSocketChannel.connect(to: webSocketURL, reconnect: .default)
        let rpc = JSONRPCClient(channel: channel)
        let prices = try await channel.subscribe(
            JSONRPCDynamicMethod("subscribe", params: .array([.string("prices")])),
            notifications: .parameter("subscription", of: "subscription"),
            unsubscribe: "unsubscribe"
        )
        var updates = prices.makeAsyncIterator()
        func show(_ label: String) async throws {
            guard let update = try await updates.next() else { return }
            let key = update.params?["subscription"]?.stringValue ?? "?"
            print("  \(label): \(update.params?["result"].map { "\($0)" } ?? "null") (subscription \(key))")
        }
        try await show("pushed at once")
        _ = try await rpc.call(JSONRPCDynamicMethod("publish", params: .array([.string("prices"), .int(42)])))
        try await show("published")
        print("  the server drops the connection…")
        _ = try? await rpc.call(JSONRPCDynamicMethod("drop"))
        try await show("after reconnecting")
        _ = try await rpc.call(JSONRPCDynamicMethod("publish", params: .array([.string("prices"), .int(43)])))
        try await show("published")
        await prices.cancel()
        await channel.close()
        print("")
    }

    private func showFailure(_ call: () async throws -> some Any) async {
        do {
            _ = try await call()
            print("  (unexpectedly succeeded)\n")
        } catch {
            print("  \(error)\n")
        }
    }
}
