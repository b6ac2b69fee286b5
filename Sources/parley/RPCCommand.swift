import ArgumentParser
import Foundation
import Parley
import ParleyAsyncHTTPClient
import ParleyJSONRPC

/// `parley rpc URL METHOD [PARAMS]`: one JSON-RPC 2.0 call (or notification, or batch) over HTTP.
struct RPCCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rpc",
        abstract: "Call a JSON-RPC 2.0 method over HTTP and print its result as JSON.",
        discussion: """
            Examples:
              parley rpc http://127.0.0.1:8080/rpc subtract '[42, 23]'
              parley rpc http://127.0.0.1:8080/rpc subtract '{"minuend": 42, "subtrahend": 23}'
              parley rpc http://127.0.0.1:8080/rpc notify_hello '[7]' --notify
              parley rpc http://127.0.0.1:8080/rpc --batch calls.json
            A batch file holds a JSON array of {"method": …, "params": …} objects; add "notify": true for a
            notification. Results print one per line, in the order of the file. The exit status is 0 when every
            call succeeded, 1 otherwise (the error is printed on standard error).
            """
    )

    @Argument(help: "The JSON-RPC endpoint, such as http://127.0.0.1:8080/rpc.")
    var url: String

    @Argument(help: "The method name.")
    var method: String?

    @Argument(help: "The parameters as JSON: an array (positional) or an object (named).")
    var params: String?

    @Flag(help: "Send a notification: no id, no answer.")
    var notify = false

    @Option(help: "Send the calls of a JSON file as one batch.")
    var batch: String?

    func validate() throws {
        if batch == nil, method == nil { throw ValidationError("Give a METHOD, or --batch FILE.") }
        if batch != nil, method != nil { throw ValidationError("Give either a METHOD or --batch FILE, not both.") }
    }

    func run() async throws {
        guard let endpoint = URL(string: url), endpoint.scheme != nil else {
            throw ValidationError("\(url) is not an absolute URL.")
        }
        let rpc = JSONRPCClient(http: Client(baseURL: endpoint))
        do {
            if let batch {
                try await runBatch(file: batch, rpc: rpc)
                return
            }
            let call = DynamicMethod(method ?? "", params: try params.map(Self.parseParams))
            if notify {
                try await rpc.notify(call)
                return
            }
            print(Self.render(try await rpc.call(call)))
        } catch let error as ParleyError {
            FileHandle.standardError.write(Data("parley: \(error)\n".utf8))
            throw ExitCode.failure
        }
    }

    private func runBatch(file: String, rpc: JSONRPCClient) async throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        guard case .array(let entries) = try JSONDecoder().decode(JSONValue.self, from: data) else {
            throw ValidationError("\(file) must hold a JSON array of {\"method\": …, \"params\": …} objects.")
        }
        var batch = JSONRPCBatch()
        var slots: [JSONRPCBatch.Slot<JSONValue>] = []
        for (index, entry) in entries.enumerated() {
            guard case .string(let name)? = entry["method"] else {
                throw ValidationError("Element \(index) of \(file) has no \"method\" string.")
            }
            let call = DynamicMethod(name, params: entry["params"])
            if entry["notify"] == .bool(true) { batch.notify(call) } else { slots.append(batch.call(call)) }
        }
        let results = try await rpc.send(batch)
        var failed = false
        for slot in slots {
            switch results[slot] {
            case .success(let value): print(Self.render(value))
            case .failure(let error):
                failed = true
                print("null")
                FileHandle.standardError.write(Data("parley: \(error)\n".utf8))
            }
        }
        if failed { throw ExitCode.failure }
    }

    static func parseParams(_ text: String) throws -> JSONValue {
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else {
            throw ValidationError("The parameters are not JSON: \(text)")
        }
        switch value {
        case .array, .object: return value
        default: throw ValidationError("JSON-RPC parameters must be an array (positional) or an object (named).")
        }
    }

    static func render(_ value: JSONValue) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? String(decoding: encoder.encode(value), as: UTF8.self)) ?? "\(value)"
    }
}
