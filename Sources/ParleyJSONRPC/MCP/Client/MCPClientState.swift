import Parley

/// What an ``MCPClient`` and its copies share: the server once connected, the connection attempt under way, the
/// `x-mcp-header` names of the tools listed, the log level asked for, and the result cache.
final class MCPClientState: Sendable {
    private struct State {
        var server: MCPServerDescription?
        /// Fires when the connection attempt under way ends (connected or not).
        var connecting: Deadline.Signal?
        /// The `x-mcp-header` names of each tool listed, by argument path.
        var parameterHeaders: [String: [[String]: String]] = [:]
        var logLevel: String?
    }

    private let state = LockedState(State())
    let cache: MCPResultCache?

    init(cache: MCPResultCache?) {
        self.cache = cache
    }

    var server: MCPServerDescription? { state.withLock { $0.server } }

    var logLevel: String? {
        get { state.withLock { $0.logLevel } }
        set { state.withLock { $0.logLevel = newValue } }
    }

    /// The server once connected; else connects with `negotiate`, one caller at a time: the others wait for it, and
    /// try themselves when it failed (each call fails or succeeds on its own attempt, none inherits another's
    /// cancellation).
    func connect(
        _ negotiate: () async throws(ParleyError) -> MCPServerDescription
    ) async throws(ParleyError) -> MCPServerDescription {
        while true {
            enum Step {
                case done(MCPServerDescription)
                case wait(Deadline.Signal)
                case lead(Deadline.Signal)
            }
            let step = state.withLock { state -> Step in
                if let server = state.server { return .done(server) }
                if let connecting = state.connecting { return .wait(connecting) }
                let signal = Deadline.Signal()
                state.connecting = signal
                return .lead(signal)
            }
            switch step {
            case .done(let server):
                return server
            case .wait(let signal):
                await signal.wait()
                if Task.isCancelled {
                    throw ParleyError(.cancelled, "The MCP call was cancelled while the client was connecting.")
                }
            case .lead(let signal):
                defer {
                    state.withLock { $0.connecting = nil }
                    signal.fire()
                }
                let server = try await negotiate()
                state.withLock { $0.server = server }
                return server
            }
        }
    }

    /// Records `server` as connected (an explicit `initialize`).
    func connected(_ server: MCPServerDescription) {
        state.withLock { $0.server = server }
    }

    func parameterHeaders(of tool: String) -> [[String]: String]? {
        state.withLock { $0.parameterHeaders[tool] }
    }

    /// Whether the `x-mcp-header` names of `tool` are known (it was listed).
    func knowsParameterHeaders(of tool: String) -> Bool {
        state.withLock { $0.parameterHeaders[tool] != nil }
    }

    func setParameterHeaders(_ headers: [[String]: String]?, of tool: String) {
        state.withLock { state in
            guard state.parameterHeaders[tool] != nil || state.parameterHeaders.count < 10_000 else { return }
            state.parameterHeaders[tool] = headers
        }
    }
}
