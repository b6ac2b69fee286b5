public import Foundation
public import Parley
public import ParleyJSONRPC

extension JSONRPCRouter {
    /// Answers the JSON-RPC messages read from `input` on `output` until the input ends: a server over
    /// standard input and output (`parley serve-stdio`, a language server, an MCP server), or over any pair of
    /// byte streams.
    ///
    /// ```swift
    /// try await router.serve(input: .standardInput, output: .standardOutput, framing: .newlineDelimited)
    /// ```
    ///
    /// Messages are handled concurrently, each answer written as soon as its handler returns. The peer's cancellation
    /// notifications (``/ParleyJSONRPC/JSONRPCRouter/cancellations``: LSP's `$/cancelRequest`, MCP's `notifications/cancelled`) cancel the handler
    /// of the request they name. When the input
    /// ends, this waits until every answer has been written, then returns. Only this side speaks when spoken
    /// to: a server that also calls its client or sends it notifications uses a ``JSONRPCStreamChannel`` with
    /// this router instead.
    ///
    /// - Throws: ``/Parley/ParleyError/Kind/transport`` when reading fails or an answer cannot be written (the reader
    ///   went away); `jsonRPCProtocol` (`ParleyError.Kind.jsonRPCProtocol`) when the framing breaks (a header block without
    ///   `Content-Length`, a message over `maxMessageSize`); ``/Parley/ParleyError/Kind/cancelled`` when the task is
    ///   cancelled. Each only after the answers already under way are written. A cancelled server stops
    ///   answering at once, but its reading thread stays blocked until the input ends.
    public func serve(
        input: FileHandle,
        output: FileHandle,
        framing: JSONRPCFraming,
        maxMessageSize: Int = 64 * 1024 * 1024
    ) async throws(ParleyError) {
        let (messages, continuation) = AsyncStream.makeStream(of: Data.self)
        let readFailure = LockedState<ParleyError?>(nil)
        let reader = Thread {
            var parser = FrameParser(framing: framing, maxMessageSize: maxMessageSize)
            defer { continuation.finish() }
            while true {
                guard let chunk = StreamIO.read(input) else {
                    readFailure.withLock { $0 = ParleyError(.transport, "Reading the JSON-RPC input failed (errno \(errno)).") }
                    return
                }
                if chunk.isEmpty { return }
                let (messages, failure) = parser.feed(chunk)
                for message in messages { continuation.yield(message) }
                if let failure {
                    readFailure.withLock { $0 = ParleyError(.jsonRPCProtocol, "The JSON-RPC peer sent \(failure).") }
                    return
                }
            }
        }
        reader.name = "parley.jsonrpc.serve"
        reader.start()

        // Serialises the answers on `output`, off Swift's threads (a peer that stops reading blocks `write(2)`);
        // `writeFailure` holds the first write failure, after which nothing more is written.
        let writer = StreamWriter(
            output,
            label: "parley.jsonrpc.serve.write",
            closedReason: "The JSON-RPC output is closed."
        )
        let writeFailure = LockedState<ParleyError?>(nil)
        let tasks = JSONRPCRequestTasks()
        await withTaskGroup(of: Void.self) { group in
            for await message in messages {
                guard let handling = intake(message, tasks: tasks) else { continue }
                group.addTask {
                    guard let answer = await handling() else { return }
                    guard writeFailure.withLock({ $0 }) == nil else { return }
                    do throws(ParleyError) {
                        try await writer.write(framing.frame(answer))
                    } catch {
                        writeFailure.withLock { $0 = $0 ?? error }
                    }
                }
            }
        }
        if let failure = writeFailure.withLock({ $0 }) { throw failure }
        if let failure = readFailure.withLock({ $0 }) { throw failure }
        if Task.isCancelled { throw ParleyError(.cancelled, "Serving JSON-RPC was cancelled.") }
    }
}
