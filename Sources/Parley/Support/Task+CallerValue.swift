extension Task where Failure == any Error {
    /// The task's value, awaited on behalf of a caller: cancelling the caller's task cancels this one, and a failure
    /// is a ``ParleyError`` (one of another type is wrapped as ``ParleyError/Kind/transport``, "`what` failed: …").
    /// What ``Transfer/value`` and a JSON-RPC call with progress share.
    package func callerValue(_ what: String) async throws(ParleyError) -> Success {
        do {
            return try await withTaskCancellationHandler {
                try await self.value
            } onCancel: {
                self.cancel()
            }
        } catch {
            throw ParleyError.wrapping(error, as: .transport, "\(what) failed: \(error)")
        }
    }
}
