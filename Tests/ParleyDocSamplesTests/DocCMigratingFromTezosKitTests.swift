// swift-format-ignore-file
// Laid out line for line as the swift blocks of the article it compiles (scripts/check-docs).
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Parley
import ParleyTesting
import ParleyURLSession
import Testing

// The Parley blocks of Sources/Parley/Parley.docc/MigratingFromTezosKit.md, compiled and run. The demo server
// serves no Tezos RPCs, so a Tezos node is stood in for by an InMemoryTransport answering the two paths used.
enum DocCMigratingFromTezosKit {
    struct Mutez: Sendable, Equatable {
        let value: Int
    }

    struct MutezDecoder: ResponseDecoder {
        func decode(_ response: ResponseBody) async throws -> Mutez {
            let text = try JSONDecoder().decode(String.self, from: try await response.data())
            guard let value = Int(text) else { throw ValidationFailure("expected a number of mutez, got \(text)") }
            return Mutez(value: value)
        }
    }

    struct GetBalance: Endpoint {
        typealias Response = Mutez
        let address: String
        var path: Path { "/chains/main/blocks/head/context/contracts/\(address)/balance" }
        var decoder: MutezDecoder { MutezDecoder() }
    }

    struct PackData: Endpoint {
        typealias Response = JSONValue
        let expression: JSONValue
        let type: JSONValue
        var method: HTTPRequest.Method { .post }
        var path: Path { "/chains/main/blocks/head/helpers/scripts/pack_data" }
        var body: RequestBody { .json(["data": expression, "type": type]) }
    }

    /// A Tezos node that knows one account.
    static func node() -> InMemoryTransport {
        let transport = InMemoryTransport()
        transport.route(.get, "/chains/main/blocks/head/context/contracts/:address/balance") { request in
            guard request.parameters["address"] == "tz1VSUr8wwNhLAzempoch5d6hLRiTh8Cjcjb" else { return .status(.notFound) }
            return try .json("1000000")
        }
        transport.route(.post, "/chains/main/blocks/head/helpers/scripts/pack_data") { request in
            let sent = try request.decodeJSON(JSONValue.self)
            return try .json(["packed": "05" + (sent["data"]?["int"]?.stringValue ?? "")])
        }
        return transport
    }
}

extension DocCMigratingFromTezosKit {
    @Suite("DocC: Migrating from TezosKit", .timeLimit(.minutes(1)))
    struct Examples {
        @Test("an RPC as an endpoint with a decoder, a payload as a JSON body, a client with a transport")
        func migrated() async throws {
            do {
let session = URLSession(configuration: .ephemeral)   // your session
                let transport = URLSessionTransport(session: session)
                #expect(transport.session === session)
            }
            let transport = DocCMigratingFromTezosKit.node()
let nodeURL = URL(string: "https://node.example")!   // your Tezos node
            let address = "tz1VSUr8wwNhLAzempoch5d6hLRiTh8Cjcjb"
            let node = Client(baseURL: nodeURL, transport: transport, headers: ["User-Agent": "my-wallet/2.0"])
            let balance = try await node.send(GetBalance(address: address))
            print(balance.value)   // 1000000

            let handle = node.send(GetBalance(address: address)) { result in
                switch result {
                case .success(let balance): print(balance.value)
                case .failure(let error): print(error.kind, error)
                }
            }
            await handle.wait()
            #expect(balance == Mutez(value: 1_000_000))
            let fromCallback = LockedBox<Mutez?>(nil)
            await node.send(GetBalance(address: address)) { result in fromCallback.mutate { $0 = try? result.get() } }.wait()
            #expect(fromCallback.value == Mutez(value: 1_000_000))

            do {
                _ = try await node.send(GetBalance(address: "tz1-no-such-account"))
            } catch {
                print(error.kind, error.status?.code ?? 0)   // unacceptableStatus 404
            }
            let thrown = await #expect(throws: ParleyError.self) { try await node.send(GetBalance(address: "tz1-no-such-account")) }
            #expect(thrown?.kind == .unacceptableStatus)

            let packed = try await node.send(PackData(expression: .object(["int": .string("42")]), type: .object(["prim": .string("int")])))
            #expect(packed["packed"] == .string("0542"))
            #expect(transport.requests.last?.header(.contentType) == "application/json")
            #expect(transport.requests.first?.header(.userAgent) == "my-wallet/2.0")
        }

        @Test("a decoder's failure is a decoding error")
        func decoderFailure() async throws {
            let transport = InMemoryTransport()
            transport.route(.get, "/chains/main/blocks/head/context/contracts/:address/balance") { _ in try .json("a lot") }
            let node = Client(baseURL: try #require(URL(string: "https://node.example")), transport: transport)
            let error = await #expect(throws: ParleyError.self) { try await node.send(GetBalance(address: "tz1")) }
            #expect(error?.kind == .decoding)
            #expect(error?.description.contains("expected a number of mutez, got a lot") == true)
        }
    }
}
