#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Parley
import ParleyAsyncHTTPClient
import ParleyJSONRPC

/// The steps `parley demo` prints: typed calls, an empty response, and failures with their descriptions.
struct DemoWalkthrough {
    let baseURL: String

    func run() async throws {
        guard let url = URL(string: baseURL) else { throw ParleyError(.invalidRequest, "bad demo URL \(baseURL)") }
        let client = Client(baseURL: url, headers: ["User-Agent": "parley-demo/1.0"])
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
        print("Done.")
    }

    /// A JSON-RPC call, a batch answered in any order and matched by id, and an error object.
    private func jsonRPC(_ url: URL) async throws {
        let rpc = JSONRPCClient(http: Client(baseURL: url), path: "/rpc")
        print("→ JSON-RPC subtract [42, 23] over POST /rpc")
        print("  \(try await rpc.call(Subtract(params: [42, 23])))\n")
        print("→ JSON-RPC batch: sum [1, 2, 4], subtract {minuend: 42, subtrahend: 23}, get_data")
        let (sum, difference, data) = try await rpc.batchValues(
            Sum(params: [1, 2, 4]), SubtractNamed(params: .init(minuend: 42, subtrahend: 23)), GetData()
        )
        print("  \(sum), \(difference), \(data)\n")
        print("→ JSON-RPC foobar (a failure: the method does not exist)")
        await showFailure { try await rpc.call(DynamicMethod("foobar")) }
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
