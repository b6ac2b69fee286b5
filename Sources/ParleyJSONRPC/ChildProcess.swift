import Dispatch
import Foundation
import Parley

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A child process started for a ``JSONRPCStreamChannel``: its standard input and output as pipes, its
/// standard error passed through (or to a given handle), and how it ended.
final class ChildProcess: Sendable {
    /// Whether and how the child ended. Kept apart from the process so that the termination handler and the
    /// channel's reader thread can hold it without keeping the channel's end of the child's input open.
    final class Exit: Sendable {
        private struct State {
            var exit: JSONRPCChildExit?
            var waiters: [CheckedContinuation<JSONRPCChildExit, Never>] = []
        }

        private let state = LockedState(State())
        private let exited = DispatchSemaphore(value: 0)

        /// How the child ended, once it has.
        var current: JSONRPCChildExit? { state.withLock { $0.exit } }

        func record(_ exit: JSONRPCChildExit) {
            let waiters = state.withLock { state -> [CheckedContinuation<JSONRPCChildExit, Never>] in
                guard state.exit == nil else { return [] }
                state.exit = exit
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume(returning: exit) }
            exited.signal()
        }

        /// Waits for the exit.
        func wait() async -> JSONRPCChildExit {
            await withCheckedContinuation { (continuation: CheckedContinuation<JSONRPCChildExit, Never>) in
                let exit = state.withLock { state -> JSONRPCChildExit? in
                    if let exit = state.exit { return exit }
                    state.waiters.append(continuation)
                    return nil
                }
                if let exit { continuation.resume(returning: exit) }
            }
        }

        /// Blocks the calling thread until the exit, or at most `timeout`.
        func wait(timeout: DispatchTimeInterval) -> JSONRPCChildExit? {
            if let exit = current { return exit }
            if exited.wait(timeout: .now() + timeout) == .success { exited.signal() }  // stays signalled for others
            return current
        }
    }

    private let process: Process
    /// How the child ended.
    let exit: Exit
    /// Our end of the child's standard input.
    let input: FileHandle
    /// Our end of the child's standard output.
    let output: FileHandle
    /// "python3 (pid 4242)", for messages.
    let name: String

    /// Starts `executable`; `onExit` runs once it has exited.
    ///
    /// - Throws: ``/Parley/ParleyError/Kind/transport`` when it cannot be started (missing, not executable).
    init(
        executable: URL,
        arguments: [String],
        environment: [String: String]?,
        currentDirectory: URL?,
        standardError: FileHandle?,
        onExit: @escaping @Sendable (JSONRPCChildExit) -> Void
    ) throws(ParleyError) {
        let path = executable.path
        guard executable.isFileURL, FileManager.default.isExecutableFile(atPath: path) else {
            let problem = FileManager.default.fileExists(atPath: path) ? "it is not an executable file" : "there is no such file"
            throw ParleyError(.transport, "Cannot launch the JSON-RPC child process \(path): \(problem). Nothing was sent.")
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        let toChild = Pipe()
        let fromChild = Pipe()
        process.standardInput = toChild
        process.standardOutput = fromChild
        if let standardError { process.standardError = standardError }
        let exit = Exit()
        process.terminationHandler = { process in
            let ended = JSONRPCChildExit(code: process.terminationStatus, bySignal: process.terminationReason == .uncaughtSignal)
            exit.record(ended)
            onExit(ended)
        }
        do {
            // The child starts with this thread's signal mask, and a Swift concurrency thread blocks nearly every
            // signal: without this, the child could not be stopped with SIGTERM, nor interrupted, nor see SIGPIPE.
            try Self.withTerminationSignalsDeliverable { try process.run() }
        } catch {
            throw ParleyError(
                .transport,
                "Cannot launch the JSON-RPC child process \(path): \(error). Nothing was sent.",
                underlying: error
            )
        }
        self.process = process
        self.exit = exit
        input = toChild.fileHandleForWriting
        output = fromChild.fileHandleForReading
        name = "\(executable.lastPathComponent) (pid \(process.processIdentifier))"
    }

    /// The signals a child is expected to act on: termination, interruption, a broken pipe, timers.
    private static let childSignals: [Int32] = [SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGALRM, SIGUSR1, SIGUSR2, SIGWINCH]

    /// Runs `body` with ``childSignals`` unblocked on this thread, except those this process ignores: while
    /// unblocked, such a signal could be delivered to this thread and dropped rather than wait for whoever
    /// collects it (a dispatch signal source); a child inherits the ignoring anyway.
    private static func withTerminationSignalsDeliverable<T>(_ body: () throws -> T) rethrows -> T {
        var deliverable = sigset_t()
        sigemptyset(&deliverable)
        for number in childSignals {
            var action = sigaction()
            guard sigaction(number, nil, &action) == 0 else { continue }
            #if canImport(Darwin)
                let handler = unsafeBitCast(action.__sigaction_u.__sa_handler, to: Int.self)
            #else
                let handler = unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self)
            #endif
            if handler != unsafeBitCast(SIG_IGN, to: Int.self) { sigaddset(&deliverable, number) }
        }
        var previous = sigset_t()
        pthread_sigmask(SIG_UNBLOCK, &deliverable, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        return try body()
    }

    /// The child's process identifier.
    var processIdentifier: Int32 { process.processIdentifier }

    /// Sends `signal` to the child, unless it has already ended.
    func send(signal number: Int32) {
        guard exit.current == nil, process.isRunning else { return }
        _ = kill(process.processIdentifier, number)
    }
}
