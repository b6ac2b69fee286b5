import ArgumentParser
import Foundation
import Parley
import ParleyJSONRPC

/// Where the server is (a URL, or a command to start) and how to talk to it: limits, header fields, era, the answers
/// to its questions. Shared by every `parley mcp` subcommand.
struct MCPTargetOptions: ParsableArguments {
    @Option(
        name: .customLong("stdio"),
        help: ArgumentHelp("Start the server as a child process (run by /bin/sh); TARGET is then left out.", valueName: "command")
    )
    var command: String?

    @Option(
        help: ArgumentHelp(
            "Seconds each call may take (with call: the tool call, however much progress comes); when it expires the "
                + "server is told to cancel and the exit status is 2.",
            valueName: "seconds"
        )
    )
    var timeout: Double?

    @Option(
        help: ArgumentHelp(
            "Seconds a call may wait for its answer or, for a tool call, for its next progress notification, which "
                + "restarts it; when it expires, as for --timeout.",
            valueName: "seconds"
        )
    )
    var idleTimeout: Double?

    @Option(
        name: .customLong("header"),
        help: ArgumentHelp(
            "Send this header field with every request to the server's URL, such as 'Authorization: Bearer …' "
                + "(repeatable; not with --stdio).",
            valueName: "name:value"
        )
    )
    var headerItems: [String] = []

    @Option(
        help: ArgumentHelp(
            "The protocol to speak: auto (2026-07-28 when the server speaks it, else the handshake era), 2026-07-28, "
                + "or a handshake version (\(MCPClient.handshakeVersions.reversed().joined(separator: ", "))).",
            valueName: "auto|version"
        )
    )
    var era = "auto"

    @Option(
        name: .customLong("elicit"),
        help: ArgumentHelp(
            "Fill the field FIELD of a form the server asks for (elicitation) with VALUE, typed as the form says "
                + "(integer, number, boolean, string); repeatable. On a terminal the other fields are asked for.",
            valueName: "field=value"
        )
    )
    var elicitItems: [String] = []

    @Flag(name: [.short, .long], help: "Print on standard error the protocol era and version chosen with the server.")
    var verbose = false

    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        for (name, seconds) in [("--timeout", timeout), ("--idle-timeout", idleTimeout)] {
            if let seconds, !(seconds > 0 && seconds.isFinite) {
                throw ValidationError("\(name) must be a positive number of seconds.")
            }
        }
        if command != nil, connection.isGiven {
            throw ValidationError("--verify, --cert, --pinned-pubkey and --proxy apply to a server's URL, not to --stdio.")
        }
        if command != nil, !headerItems.isEmpty {
            throw ValidationError("--header applies to a server's URL, not to --stdio.")
        }
        _ = try headers()
        _ = try pinnedEra()
        _ = try elicitAnswers()
    }

    /// `--era`: `nil` for auto.
    func pinnedEra() throws -> MCPEra? {
        if era.lowercased() == "auto" { return nil }
        guard MCPClient.statelessVersions.contains(era) || MCPClient.handshakeVersions.contains(era) else {
            let known = (MCPClient.statelessVersions + MCPClient.handshakeVersions).reversed().joined(separator: ", ")
            throw ValidationError("--era takes auto or a protocol version this client speaks: \(known).")
        }
        return MCPEra(era)
    }

    /// `--header` items as header fields, checked (``URLEndpoint/parseHeaders(_:)``, the one reader of `--header`).
    func headers() throws -> Headers {
        try URLEndpoint.parseHeaders(headerItems)
    }

    /// `--elicit` items by field name; the last of a name wins.
    func elicitAnswers() throws -> [String: String] {
        var answers: [String: String] = [:]
        for item in elicitItems {
            guard let equals = item.firstIndex(of: "="), equals > item.startIndex else {
                throw ValidationError("--elicit takes FIELD=VALUE; '\(PrintableText.escaping(item))' is not.")
            }
            answers[String(item[..<equals])] = String(item[item.index(after: equals)...])
        }
        return answers
    }

    /// `--timeout` as a duration.
    var total: Duration? { timeout.map(RPCCommand.duration) }
    /// `--idle-timeout` as a duration.
    var idle: Duration? { idleTimeout.map(RPCCommand.duration) }
    /// The limit of a call without progress: a call with nothing to restart its idle clock counts it from the send,
    /// so the smaller of the two limits decides (as `JSONRPCCallLimits` says).
    var callLimit: Duration? {
        switch (total, idle) {
        case (let total?, let idle?): min(total, idle)
        case (let total, let idle): total ?? idle
        }
    }

    /// `words` split into the server's URL (unless `--stdio`) and what follows it.
    func split(_ words: [String]) -> (url: String?, rest: ArraySlice<String>) {
        command == nil ? (words.first, words.dropFirst()) : (nil, words[...])
    }

    /// Checks that `words` hold the target and between `minimum` and `maximum` more words, naming them (`what`).
    func require(_ words: [String], _ minimum: Int, _ maximum: Int? = nil, naming what: String) throws {
        let rest = split(words).rest.count
        let needed = command == nil ? "the server's URL" + (what.isEmpty ? "" : ", then \(what)") : what
        if (command == nil && words.isEmpty) || rest < minimum {
            throw ValidationError("Give \(needed)" + (command == nil ? " (or --stdio 'COMMAND ARGS…' for the URL)." : "."))
        }
        if let maximum, rest > maximum {
            throw ValidationError(needed.isEmpty ? "With --stdio, give no URL." : "Too many arguments: give \(needed).")
        }
    }
}
