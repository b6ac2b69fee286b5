import ArgumentParser
import Foundation
import Parley
import ParleyJSONRPC

extension RPCCommand {
    /// `--progress`: how the call asks for progress, and how it is cancelled when it expires.
    enum ProgressStyle: String, ExpressibleByArgument, CaseIterable {
        case mcp
        case lsp

        var style: JSONRPCProgress { self == .mcp ? .mcp : .lsp }
        var cancellation: JSONRPCCancellation { self == .mcp ? .mcp : .lsp }
    }

    /// The call's limits: `--timeout` as the total, `--idle-timeout` as the idle limit.
    var limits: JSONRPCCallLimits {
        JSONRPCCallLimits(total: timeout.map(Self.duration), idle: idleTimeout.map(Self.duration))
    }

    /// Makes the call within ``limits``, with `--progress` printing each notification on standard error; a call that
    /// fails waits until the peer has been sent its cancellation.
    func call(_ method: JSONRPCDynamicMethod, on rpc: JSONRPCClient) async throws -> JSONValue {
        do {
            guard let progress else { return try await rpc.call(method, limits: limits) }
            let running = rpc.call(method, progress: progress.style, limits: limits)
            for await update in running.progress {
                FileHandle.standardError.write(Data((PrintableText.escaping(Self.describe(update)) + "\n").utf8))
            }
            return try await running.value
        } catch {
            // The peer hears of a call that expired before this process goes.
            await rpc.waitForCancellationNotices()
            throw error
        }
    }

    /// `progress: 3/10 message`, as `parley mcp call --progress` prints it.
    static func describe(_ update: JSONRPCProgressUpdate) -> String {
        var line = "progress: \(number(update.progress))"
        if let total = update.total { line += "/\(number(total))" }
        if let message = update.message { line += " \(message)" }
        return line
    }

    private static func number(_ value: Double?) -> String {
        guard let value else { return "?" }
        return value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    /// Seconds as a `Duration`, rounded up to the millisecond (at most a million days).
    static func duration(_ seconds: Double) -> Duration {
        .milliseconds(Int64((min(seconds, 86_400e6) * 1000).rounded(.up)))
    }
}
