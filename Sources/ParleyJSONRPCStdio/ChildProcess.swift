import CParleySystem
import Dispatch
import Foundation
import Parley
import ParleyJSONRPC

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

    private let pid: pid_t
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
        // Ours ends are closed on exec: only the child's ends (dup'ed to 0 and 1) reach it.
        let toChild = Self.makePipe()
        let fromChild = toChild == nil ? nil : Self.makePipe()
        guard let toChild, let fromChild else {
            let reason = String(cString: strerror(errno))
            if let toChild { for descriptor in [toChild.read, toChild.write] { close(descriptor) } }
            throw ParleyError(
                .transport,
                "Cannot launch the JSON-RPC child process \(path): no pipe (\(reason)). Nothing was sent."
            )
        }
        let pid: pid_t
        do {
            pid = try Spawn.start(
                path,
                arguments: arguments,
                environment: environment,
                currentDirectory: currentDirectory?.path,
                standardInput: toChild.read,
                standardOutput: fromChild.write,
                standardError: standardError?.fileDescriptor
            )
        } catch {
            for descriptor in [toChild.read, toChild.write, fromChild.read, fromChild.write] { close(descriptor) }
            throw ParleyError(
                .transport,
                "Cannot launch the JSON-RPC child process \(path): \(error). Nothing was sent.",
                underlying: error
            )
        }
        // The child's ends belong to the child now.
        close(toChild.read)
        close(fromChild.write)
        let exit = Exit()
        Spawn.watch(pid) { ended in
            exit.record(ended)
            onExit(ended)
        }
        self.pid = pid
        self.exit = exit
        input = FileHandle(fileDescriptor: toChild.write, closeOnDealloc: true)
        output = FileHandle(fileDescriptor: fromChild.read, closeOnDealloc: true)
        name = "\(executable.lastPathComponent) (pid \(pid))"
    }

    /// A pipe whose two ends are closed on exec.
    private static func makePipe() -> (read: Int32, write: Int32)? {
        var descriptors: [Int32] = [0, 0]
        guard parley_pipe_cloexec(&descriptors) == 0 else { return nil }
        return (descriptors[0], descriptors[1])
    }

    /// The child's process identifier.
    var processIdentifier: Int32 { pid }

    /// Sends `signal` to the child, unless it has already ended.
    func send(signal number: Int32) {
        guard exit.current == nil else { return }
        _ = kill(pid, number)
    }
}
