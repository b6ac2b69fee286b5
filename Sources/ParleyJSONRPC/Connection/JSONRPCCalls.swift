package import Parley

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// The call table of a ``JSONRPCConnection``: a message begins (registered before it is written, so an answer that
/// overtakes its caller is kept), its answer arrives (``JSONRPCInbound`` routes it here by id), or its caller abandons
/// it (the write failed, or it was cancelled), or the connection is lost under it.
package struct JSONRPCCalls: Sendable {
    let connection: JSONRPCConnection

    /// Writes `message` on the connection (waiting for one being opened); waits for the answer to `ids` when there
    /// are any.
    package func exchange(_ message: Data, ids: [JSONRPCID]) async throws(ParleyError) -> JSONRPCReply? {
        while true {
            switch try connection.apply({ state throws(ParleyError) in try state.begin(ids) }) {
            case .closed(let reason):
                throw ParleyError(.transport, "The JSON-RPC channel is closed: \(reason).")
            case .wait(let token):
                try await waitForConnection(token)
            case .ready(let write, nil):
                try await write(message)
                return nil
            case .ready(let write, let call?):
                do {
                    try await write(message)
                } catch {
                    _ = connection.apply { $0.abandon(call) }
                    throw error
                }
                return try await answer(to: call)
            }
        }
    }

    /// An answer carrying `ids` arrived: its caller gets it.
    func answered(_ ids: [JSONRPCID], _ reply: JSONRPCReply) {
        connection.apply { $0.answer(ids, reply) }?.resume(returning: reply)
    }

    private func answer(to call: Int) async throws(ParleyError) -> JSONRPCReply {
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: JSONRPCConnectionState.AnswerContinuation) in
                    if let ready = connection.apply({ $0.suspend(call, continuation) }) {
                        continuation.resume(with: ready.mapError { $0 as any Error })
                    }
                }
            } onCancel: {
                connection.apply { $0.abandon(call) }?.resume(
                    throwing: ParleyError(.cancelled, "The JSON-RPC call was cancelled.")
                )
            }
        } catch {
            throw ParleyError.wrapping(error, as: .transport, "The JSON-RPC channel failed: \(error)")
        }
    }

    private func waitForConnection(_ token: Int) async throws(ParleyError) {
        do {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: JSONRPCConnectionState.WriterContinuation) in
                    let now = connection.apply { $0.waitForWriter(continuation, token: token, isCancelled: Task.isCancelled) }
                    if let now { continuation.resume(with: now.mapError { $0 as any Error }) }
                }
            } onCancel: {
                connection.apply { $0.stopWaitingForWriter(token) }?.resume(
                    throwing: JSONRPCConnectionState.cancelledWhileConnecting
                )
            }
        } catch {
            throw ParleyError.wrapping(error, as: .transport, "Waiting for the JSON-RPC connection failed: \(error)")
        }
    }
}
