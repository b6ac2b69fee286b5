/// How a child process started by ``JSONRPCStreamChannel/launch(executable:arguments:environment:currentDirectory:standardError:framing:router:maxMessageSize:)``
/// ended.
public struct JSONRPCChildExit: Sendable, Hashable, CustomStringConvertible {
    /// The exit status, or the number of the signal that ended the process when ``bySignal`` is `true`.
    public var code: Int32
    /// Whether a signal ended the process.
    public var bySignal: Bool

    /// An exit: `code` is the exit status, or a signal number when `bySignal` is `true`.
    public init(code: Int32, bySignal: Bool = false) {
        self.code = code
        self.bySignal = bySignal
    }

    /// Whether the process exited by itself with status 0.
    public var isSuccess: Bool { !bySignal && code == 0 }

    /// "exited with status 3", "was killed by signal 9".
    public var description: String {
        bySignal ? "was killed by signal \(code)" : "exited with status \(code)"
    }
}
