public import Foundation
public import Parley
public import ParleyJSONRPC

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension JSONRPCStreamChannel {
    /// Starts `executable` as a child process and talks JSON-RPC with it over its standard input and output,
    /// the way an editor talks to a language server or an MCP client to a local server.
    ///
    /// ```swift
    /// let server = try JSONRPCStreamChannel.launch(
    ///     executable: URL(fileURLWithPath: "/usr/local/bin/parley"), arguments: ["serve-stdio"], framing: .contentLength
    /// )
    /// let rpc = JSONRPCClient(channel: server)
    /// let difference = try await rpc.call(Subtract(params: [42, 23]))
    /// let exit = await server.shutdown()     // closes its input, waits for it to exit
    /// ```
    ///
    /// The child's standard error is passed through to this process's, unless `standardError` names another
    /// handle (such as `FileHandle.nullDevice`, or a file's handle to keep its logs). When the child exits, or
    /// just closes its output, every pending call fails at once with ``/Parley/ParleyError/Kind/transport``, and the
    /// message says how it ended ("exited with status 3", "was killed by signal 9"). Dropping the channel closes
    /// the child's input, without waiting.
    ///
    /// - Parameters:
    ///   - executable: The program, as a file URL (use `/usr/bin/env` with the name as first argument to
    ///     search `PATH`).
    ///   - arguments: Its arguments.
    ///   - environment: Its environment; `nil` passes this process's on.
    ///   - currentDirectory: Its working directory; `nil` keeps this process's.
    ///   - standardError: Where its standard error goes; `nil` for this process's.
    ///   - framing: How messages are delimited on its input and output.
    ///   - router: Answers the child's requests.
    ///   - maxMessageSize: The largest message accepted from the child (default 64 MiB).
    /// - Throws: ``/Parley/ParleyError/Kind/transport`` when the child cannot be started (no such file, not
    ///   executable), before anything is sent: the same kind as a child that exits, or a server that refuses
    ///   the connection.
    public static func launch(
        executable: URL,
        arguments: [String] = [],
        environment: [String: String]? = nil,
        currentDirectory: URL? = nil,
        standardError: FileHandle? = nil,
        framing: JSONRPCFraming,
        router: JSONRPCRouter? = nil,
        maxMessageSize: Int = 64 * 1024 * 1024
    ) throws(ParleyError) -> JSONRPCStreamChannel {
        let connection = JSONRPCConnection(router: router)
        let child = try ChildProcess(
            executable: executable,
            arguments: arguments,
            environment: environment,
            currentDirectory: currentDirectory,
            standardError: standardError
        ) { exit in
            // The reader closes the channel when the child's output ends, after the answers still in the pipe.
            // Should another process keep that output open (a grandchild), the exit alone closes it shortly: a timer
            // in the connection's task loop.
            connection.tasks.run {
                try? await Task.sleep(for: .seconds(2))
                connection.close(reason: "the child process \(executable.lastPathComponent) \(exit)")
            }
        }
        return JSONRPCStreamChannel(
            input: child.output,
            output: child.input,
            framing: framing,
            connection: connection,
            maxMessageSize: maxMessageSize,
            child: child
        )
    }

    /// The child's process identifier, for a channel made by
    /// ``launch(executable:arguments:environment:currentDirectory:standardError:framing:router:maxMessageSize:)``.
    public var processIdentifier: Int32? { child?.processIdentifier }

    /// Waits until the launched child exits, and says how; `nil` at once for a channel that launched none.
    ///
    /// Nothing is closed or sent: a child that waits for more input waits on (see ``shutdown(gracePeriod:)``).
    public func waitForExit() async -> JSONRPCChildExit? {
        await child?.exit.wait()
    }

    /// Ends the launched child and says how it ended.
    ///
    /// Closes the channel (pending calls fail with ``/Parley/ParleyError/Kind/transport``) and with it the child's
    /// standard input, which a well-behaved child takes as its cue to exit. A child still running after
    /// `gracePeriod` gets `SIGTERM`, and `SIGKILL` after another `gracePeriod`. For a channel that launched no
    /// child, this is ``close()`` and returns `nil`.
    public func shutdown(gracePeriod: Duration = .seconds(5)) async -> JSONRPCChildExit? {
        close()
        guard let child else { return nil }
        // The exit and the escalation race in one group: the exit ends the escalation.
        return await withTaskGroup(of: JSONRPCChildExit?.self) { group in
            group.addTask { await child.exit.wait() }
            group.addTask {
                guard (try? await Task.sleep(for: gracePeriod)) != nil else { return nil }
                child.send(signal: SIGTERM)
                guard (try? await Task.sleep(for: gracePeriod)) != nil else { return nil }
                child.send(signal: SIGKILL)
                return nil
            }
            var exit: JSONRPCChildExit?
            for await outcome in group {
                guard let outcome else { continue }
                exit = outcome
                group.cancelAll()
            }
            return exit
        }
    }
}
