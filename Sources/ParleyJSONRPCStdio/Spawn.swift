import CParleySystem
import Foundation
import Parley

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Starts child processes with `posix_spawn`, and watches them end with `waitpid` on a thread of their own.
///
/// Not Foundation's `Process`: on Linux its `run()` reads past a buffer while it lists `/proc/self/fd`
/// (swift-corelibs-foundation #5472, fixed after Swift 6.3.1), which crashes the calling process now and then, the
/// more often the more descriptors it has open; a server that launches tool servers has many.
package enum Spawn {
    /// Why a process could not be started.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// Starts `path` with `arguments`; its standard input, output and error are the given descriptors (standard error
    /// this process's own when `nil`); it inherits no other descriptor. Returns its process identifier.
    ///
    /// The child starts with no signal blocked (a Swift concurrency thread blocks nearly all of them, and a child
    /// would inherit that mask), and with the signals this process ignores still ignored.
    package static func start(
        _ path: String,
        arguments: [String],
        environment: [String: String]?,
        currentDirectory: String?,
        standardInput: Int32,
        standardOutput: Int32,
        standardError: Int32?
    ) throws(Failure) -> Int32 {
        #if canImport(Darwin)
            var actions: posix_spawn_file_actions_t? = nil
            var attributes: posix_spawnattr_t? = nil
        #else
            var actions = posix_spawn_file_actions_t()
            var attributes = posix_spawnattr_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }

        // Standard error first: its source may be this process's 0 or 1, which the next two replace.
        if let standardError {
            posix_spawn_file_actions_adddup2(&actions, standardError, 2)
        } else {
            _ = parley_spawn_addinherit(&actions, 2)
        }
        posix_spawn_file_actions_adddup2(&actions, standardInput, 0)
        posix_spawn_file_actions_adddup2(&actions, standardOutput, 1)
        if let currentDirectory {
            let status = parley_spawn_addchdir(&actions, currentDirectory)
            guard status == 0 else {
                throw Failure(description: "cannot change its directory to \(currentDirectory): \(describe(status))")
            }
        }
        var flags = Int32(POSIX_SPAWN_SETSIGMASK)
        #if canImport(Darwin)
            flags |= Int32(POSIX_SPAWN_CLOEXEC_DEFAULT)
        #else
            let closing = parley_spawn_addclosefrom(&actions, 3)
            guard closing == 0 else {
                throw Failure(description: "cannot list its descriptors to close: \(describe(closing))")
            }
        #endif
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setflags(&attributes, Int16(truncatingIfNeeded: flags))

        let argv = ([path] + arguments).map { strdup($0) }
        defer { for argument in argv { free(argument) } }
        let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } }
        defer { for entry in envp ?? [] { free(entry) } }
        var pid: pid_t = 0
        let status = (argv + [nil]).withUnsafeBufferPointer { argvBuffer -> Int32 in
            guard let argvBase = argvBuffer.baseAddress else { return EINVAL }
            let argvPointer = UnsafeMutablePointer(mutating: argvBase)
            guard let envp else { return posix_spawn(&pid, path, &actions, &attributes, argvPointer, environ) }
            return (envp + [nil]).withUnsafeBufferPointer { envBuffer -> Int32 in
                guard let envBase = envBuffer.baseAddress else { return EINVAL }
                return posix_spawn(&pid, path, &actions, &attributes, argvPointer, UnsafeMutablePointer(mutating: envBase))
            }
        }
        guard status == 0 else { throw Failure(description: describe(status)) }
        return pid
    }

    /// Calls `onExit` once `pid` has ended, from a thread of its own that waits for it (`waitpid` blocks: never on a
    /// Swift concurrency thread).
    package static func watch(_ pid: Int32, onExit: @escaping @Sendable (JSONRPCChildExit) -> Void) {
        let thread = Thread {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 {
                guard errno == EINTR else { return onExit(JSONRPCChildExit(code: -1)) }
            }
            onExit(exit(from: status))
        }
        thread.name = "parley.child.wait"
        thread.start()
    }

    /// A `waitpid` status as an exit: its code, or the signal that ended it.
    static func exit(from status: Int32) -> JSONRPCChildExit {
        let signal = status & 0x7f
        return signal == 0 ? JSONRPCChildExit(code: (status >> 8) & 0xff) : JSONRPCChildExit(code: signal, bySignal: true)
    }

    private static func describe(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
