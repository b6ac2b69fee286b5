import ArgumentParser
import Foundation
import Parley
import ParleyAsyncHTTPClient
import ParleyJSONRPC
import ParleyJSONRPCWebSocket

/// `parley rpc URL METHOD [PARAMS]`: one JSON-RPC 2.0 call (or notification, or batch) over HTTP or WebSocket.
struct RPCCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rpc",
        abstract: "Call a JSON-RPC 2.0 method over HTTP or WebSocket and print its result as JSON.",
        discussion: """
            Examples:
              parley rpc http://127.0.0.1:8080/rpc subtract '[42, 23]'
              parley rpc http://127.0.0.1:8080/rpc subtract '{"minuend": 42, "subtrahend": 23}'
              parley rpc http://127.0.0.1:8080/rpc notify_hello '[7]' --notify
              parley rpc http://127.0.0.1:8080/rpc --batch calls.json
              parley rpc --ws ws://127.0.0.1:8081/rpc/ws subscribe '["prices"]' --notifications 1
              parley rpc --ws ws://127.0.0.1:8081/lsp index '{"root": "."}' --progress lsp --idle-timeout 10 --timeout 600
            A batch file holds a JSON array of {"method": …, "params": …} objects; add "notify": true for a
            notification. Results print one per line, in the order of the file. The exit status is 0 when every
            call succeeded, 2 when the call timed out (--timeout, --idle-timeout), 1 otherwise (the error is printed
            on standard error). --timeout bounds the whole call, however much progress comes; --idle-timeout bounds
            the wait for the answer or, with --progress, for the next progress notification, which restarts it.
            --progress mcp|lsp puts a progress token in the call as that protocol does, prints each notification on
            standard error, and cancels a call that times out in that protocol's words. With --ws (implied by a ws://
            or wss:// URL) the call goes over a WebSocket; --notifications N then prints the first N notifications
            the server pushes after the answer, one JSON object per line.
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

    @Flag(help: "Talk over a WebSocket (implied by a ws:// or wss:// URL).")
    var ws = false

    @Option(help: "Over a WebSocket: after the answer, print this many notifications the server pushes.")
    var notifications = 0

    @Option(help: ArgumentHelp("Seconds the call may take in all, however much progress comes.", valueName: "seconds"))
    var timeout: Double?

    @Option(
        help: ArgumentHelp(
            "Seconds the call may wait for its answer or, with --progress, for its next progress notification.",
            valueName: "seconds"
        )
    )
    var idleTimeout: Double?

    @Option(help: "Ask for progress as MCP (_meta.progressToken) or LSP (workDoneToken) does, and print it on standard error.")
    var progress: ProgressStyle?

    @Option(
        name: .customLong("header"),
        help: ArgumentHelp(
            "Send this header field with every request, such as 'Authorization: Bearer …' (repeatable; over HTTP as "
                + "over --ws, where it goes with the upgrade request).",
            valueName: "name:value"
        )
    )
    var headerItems: [String] = []

    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        _ = try URLEndpoint.parseHeaders(headerItems)
        if batch == nil, method == nil { throw ValidationError("Give a METHOD, or --batch FILE.") }
        if batch != nil, method != nil { throw ValidationError("Give either a METHOD or --batch FILE, not both.") }
        if notifications < 0 { throw ValidationError("--notifications must not be negative.") }
        if notifications > 0, !overWebSocket { throw ValidationError("--notifications needs --ws: HTTP has no server push.") }
        for (name, seconds) in [("--timeout", timeout), ("--idle-timeout", idleTimeout)] {
            if let seconds, !(seconds > 0 && seconds.isFinite) {
                throw ValidationError("\(name) must be a positive number of seconds.")
            }
        }
        if batch != nil || notify, timeout != nil || idleTimeout != nil || progress != nil {
            throw ValidationError("--timeout, --idle-timeout and --progress apply to one call, not to --batch or --notify.")
        }
        if overWebSocket, connection.isGiven {
            throw ValidationError("--verify, --cert, --pinned-pubkey and --proxy apply to HTTP; a WebSocket connects directly.")
        }
    }

    private var overWebSocket: Bool {
        ws || url.hasPrefix("ws://") || url.hasPrefix("wss://")
    }

    func run() async throws {
        guard let endpoint = URL(string: url), endpoint.scheme != nil else {
            throw ValidationError("\(url) is not an absolute URL.")
        }
        var http: Client?
        do {
            var channel: JSONRPCWebSocketChannel?
            let rpc: JSONRPCClient
            if overWebSocket {
                let webSocket = try await JSONRPCWebSocketChannel.connect(to: url, headers: URLEndpoint.parseHeaders(headerItems))
                channel = webSocket
                rpc = JSONRPCClient(channel: webSocket, cancellation: progress?.cancellation)
            } else {
                // With --timeout, the call's total is the one limit on the wait for the answer's head.
                let configuration = Client.Configuration(responseHeadTimeout: timeout == nil ? .seconds(60) : nil)
                let client = Client(
                    baseURL: endpoint,
                    transport: try connection.transport(),
                    headers: try URLEndpoint.parseHeaders(headerItems),
                    configuration: configuration
                )
                http = client
                rpc = JSONRPCClient(http: client, cancellation: progress?.cancellation)
            }
            defer { if let channel { Task { await channel.close() } } }
            try await perform(rpc)
            try? await http?.shutdown()
            if let channel, notifications > 0 {
                var printed = 0
                for await notification in channel.incoming {
                    var members: [String: JSONValue] = ["method": .string(notification.method)]
                    members["params"] = notification.params
                    print(Self.render(.object(members), pretty: false))
                    printed += 1
                    if printed == notifications { break }
                }
                if printed < notifications {
                    throw ParleyError(.transport, "The WebSocket closed after \(printed) of \(notifications) notifications.")
                }
            }
            await channel?.close()
        } catch let error as ParleyError {
            try? await http?.shutdown()
            FileHandle.standardError.write(Data("parley: \(error)\n".utf8))
            throw error.kind == .timeout ? ExitCode(2) : ExitCode.failure
        } catch {
            try? await http?.shutdown()
            throw error
        }
    }

    private func perform(_ rpc: JSONRPCClient) async throws {
        if let batch {
            try await runBatch(file: batch, rpc: rpc)
            return
        }
        let call = JSONRPCDynamicMethod(method ?? "", params: try params.map(Self.parseParams))
        if notify {
            try await rpc.notify(call)
            return
        }
        print(Self.render(try await self.call(call, on: rpc)))
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
            let call = JSONRPCDynamicMethod(name, params: entry["params"])
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

    static func render(_ value: JSONValue, pretty: Bool = true) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting =
            pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return (try? String(decoding: encoder.encode(value), as: UTF8.self)) ?? "\(value)"
    }
}
