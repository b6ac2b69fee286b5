package import Parley

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// The peer's requests being handled, by id, so that the peer's cancellation notification can cancel the handler
/// (``JSONRPCRouter/cancellations``).
///
/// A request is reserved in arrival order, before its handler's task starts, by the one reader of the connection;
/// so a cancellation read after its request always finds it, even when the handler has not started yet.
package final class JSONRPCRequestTasks: Sendable {
    private struct Entry {
        /// Fired to cancel the handler (a child of the handling's group).
        var stop: Deadline.Signal?
        /// The cancellation that named it; the handler is cancelled and the answer replaced.
        var cancelledBy: JSONRPCCancellation?
    }

    private let state = LockedState([JSONValue: Entry]())

    package init() {}

    /// Reserves `id` for a request about to be handled; `false` when a request with that id is already in flight
    /// (the second is then handled without being cancellable).
    package func reserve(_ id: JSONValue) -> Bool {
        state.withLock { entries in
            guard entries[id] == nil else { return false }
            entries[id] = Entry()
            return true
        }
    }

    /// Runs the handling of the reserved request `id`; returns its answer, or what the cancellation says when the
    /// peer cancelled it meanwhile.
    package func run(_ id: JSONValue, _ handle: @escaping @Sendable () async -> Data?) async -> Data? {
        let stop = Deadline.Signal()
        let cancelledEarly = state.withLock { entries -> Bool in
            entries[id]?.stop = stop
            return entries[id]?.cancelledBy != nil
        }
        if cancelledEarly { stop.fire() }
        // The handler and the wait for the peer's cancellation race in one group; the handler's answer is kept
        // either way (a cancelled handler may still answer).
        let answer = await withTaskGroup(of: Data??.self) { group in
            group.addTask { Optional(await handle()) }
            group.addTask {
                await stop.wait()
                return nil
            }
            var answer: Data?
            for await outcome in group {
                if let outcome { answer = outcome }
                group.cancelAll()
            }
            return answer
        }
        guard let cancellation = state.withLock({ $0.removeValue(forKey: id)?.cancelledBy }) else { return answer }
        return cancellation.cancelledAnswer.map { JSONRPCRouter.errorResponse($0, id: id) }
    }

    /// The peer sent the notification `method` with `params`: when one of `cancellations` recognises it, the
    /// request it names is cancelled. Returns whether it was a cancellation.
    @discardableResult
    package func cancel(method: String, params: JSONValue?, using cancellations: [JSONRPCCancellation]) -> Bool {
        guard let cancellation = cancellations.first(where: { $0.method == method }) else { return false }
        guard let id = cancellation.cancelledID(params) else { return true }
        let stop = state.withLock { entries -> Deadline.Signal? in
            guard entries[id] != nil, entries[id]?.cancelledBy == nil else { return nil }
            entries[id]?.cancelledBy = cancellation
            return entries[id]?.stop
        }
        stop?.fire()
        return true
    }
}
