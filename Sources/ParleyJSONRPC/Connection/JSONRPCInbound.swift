import Parley

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// What the peer sends on a ``JSONRPCConnection``, in arrival order: each message scanned from its bytes
/// (``JSONRPCFrame``) and routed, decoded once at most. An answer goes to its caller undecoded (``JSONRPCCalls``), a
/// notification to its subscription or to ``JSONRPCConnection/incoming``, a request to the router once admitted: it
/// takes one of the peer's slots (``JSONRPCConnectionState/maxPeerRequests``), or is refused at once with `-32000`.
/// Every channel routes through it: byte streams, WebSocket and MCP Streamable HTTP.
package struct JSONRPCInbound: Sendable {
    let connection: JSONRPCConnection

    /// The handling of one of the peer's requests: runs its handler, writes its answer, and frees its slot.
    package typealias Handling = @Sendable () async -> Void

    /// What a message from the peer leaves to do (``admit(_:write:)``).
    package enum Admitted: Sendable {
        /// An answer to write at once: the refusal of a request beyond the limit, or `-32700` for what is not JSON.
        case answer(Data)
        /// The handling of an admitted request, to run concurrently.
        case handling(Handling)
    }

    /// The reading loop of one connection: `frames` reads the connection and hands each message to `route`; the
    /// peer's requests are handled concurrently, in a task group this loop owns, and answered with `write`. The loop
    /// never waits for a handler: answers and notifications keep flowing whatever the handlers wait for (a handler
    /// that calls the peer back gets its answer). When `frames` returns or throws, `ended` runs (with the error), then
    /// the handlers still running are cancelled (their connection is gone) and awaited.
    package func read(
        write: @escaping JSONRPCConnection.Writer,
        ended: (_ failure: (any Error)?) -> Void,
        _ frames: (_ route: (Data) -> Void) async throws -> Void
    ) async {
        await withDiscardingTaskGroup { group in
            do {
                try await frames { message in
                    if let handling = route(message, write: write) { group.addTask(operation: handling) }
                }
                ended(nil)
            } catch {
                ended(error)
            }
            group.cancelAll()
        }
    }

    /// Runs the handlings a reader thread routed (``route(_:write:)``, in arrival order) in a task group of this task.
    /// Returns when `handlings` ends and every handler has finished.
    package func run(_ handlings: AsyncStream<Handling>) async {
        await withDiscardingTaskGroup { group in
            for await handling in handlings { group.addTask(operation: handling) }
        }
    }

    /// ``admit(_:write:)``, with an answer at once written by a handling of its own, to run concurrently.
    package func route(_ message: Data, write: @escaping JSONRPCConnection.Writer) -> Handling? {
        switch admit(message, write: write) {
        case nil: nil
        case .answer(let answer)?: { try? await write(answer) }
        case .handling(let handling)?: handling
        }
    }

    /// Whether `message` is an answer (no `method`) to one of `ids`, or a batch holding one: read from its bytes, so
    /// that the answer is decoded once, by its caller.
    package static func answers(_ message: Data, ids: [JSONRPCID]) -> Bool {
        guard case .answers(let answered) = JSONRPCFrame.scan(message) else { return false }
        return answered.contains(where: ids.contains)
    }

    /// Routes one message from the peer, in arrival order, decoding it once at most: an answer goes to its caller
    /// undecoded (the caller decodes it with its typed decoders), a notification to its subscription or ``incoming``
    /// (a cancellation also cancels the request it names); a request takes one of the peer's slots and is reserved for
    /// its cancellations, and its handling is returned (its answer written with `write`, its slot freed after); beyond
    /// the limit, its answer `-32000` is returned.
    package func admit(_ message: Data, write: @escaping JSONRPCConnection.Writer) -> Admitted? {
        switch JSONRPCFrame.scan(message) {
        case .answers(let ids):
            connection.calls.answered(ids, JSONRPCReply(data: message))
            return nil
        case .malformed:
            // Not JSON: answer as the specification says; nobody waits on it.
            return .answer(JSONRPCRouter.errorResponse(.parseError(), id: .null))
        case .messages:
            break
        }
        // Beyond the limit, a request is refused from the id its bytes carry: a flood costs a scan each, not a decoding.
        if let id = JSONRPCFrame.requestID(message),
            let limit = connection.apply({ $0.peerRequests < $0.maxPeerRequests ? nil : $0.maxPeerRequests })
        {
            return JSONRPCConnectionState.busyAnswer(to: ["id": JSONValue(id)], limit: limit).map { .answer($0) }
        }
        let router = connection.router
        guard let parsed = try? router.decoder.decode(JSONValue.self, from: message) else {
            return .answer(JSONRPCRouter.errorResponse(.parseError(), id: .null))
        }
        if case .object(let members) = parsed, case .string(let method)? = members["method"], members["id"] == nil {
            connection.requests.cancel(method: method, params: members["params"], using: router.cancellations)
            var notification = JSONRPCIncoming(method: method, params: members["params"], id: nil)
            notification.byteCount = message.count
            notify(notification)
            return nil
        }
        guard connection.apply({ $0.peerRequestStarted() }) else {
            let limit = connection.apply { $0.maxPeerRequests }
            return JSONRPCConnectionState.busyAnswer(to: parsed, limit: limit).map { .answer($0) }
        }
        guard let handling = router.intake(parsed: parsed, tasks: connection.requests) else {
            connection.apply { $0.peerRequestFinished() }
            return nil
        }
        return .handling { [connection] in
            defer { connection.apply { $0.peerRequestFinished() } }
            if let answer = await handling() { try? await write(answer) }
        }
    }

    /// A notification: to the subscription it belongs to, held while a subscription of its method awaits its key, or
    /// to ``JSONRPCConnection/incoming``.
    private func notify(_ notification: JSONRPCIncoming) {
        connection.update { state -> (JSONRPCConnectionState.Release, Void) in
            var release = JSONRPCConnectionState.Release()
            switch state.notification(notification) {
            case .subscription(let id, let continuation): release.routed.append((id, continuation, notification))
            case .held: break
            case .incoming: release.unowned.append(notification)
            }
            return (release, ())
        }
    }
}
