extension Client {
    /// The tasks of one timed call, and whether the caller cancelled before they existed.
    private struct TimedCall: Sendable {
        var work: Task<Void, Never>?
        var timer: Task<Void, Never>?
        var callerCancelled = false
    }

    /// Runs `operation`, failing with ``ParleyError/Kind/timeout`` once `timeout` has passed, whether or not
    /// the operation has reacted to its cancellation yet (it is cancelled and left to wind down).
    /// Cancelling the caller fails at once with ``ParleyError/Kind/cancelled``.
    static func withTimeout<Value: Sendable>(
        _ timeout: Duration,
        _ operation: @escaping @Sendable () async throws(ParleyError) -> Value
    ) async throws(ParleyError) -> Value {
        let call = LockedState(TimedCall())
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                    let pending = LockedState<CheckedContinuation<Value, any Error>?>(continuation)
                    let finish: @Sendable (Result<Value, any Error>) -> Void = { result in
                        pending.withLock { slot in
                            defer { slot = nil }
                            return slot
                        }?.resume(with: result)
                    }
                    let work = Task {
                        do throws(ParleyError) {
                            finish(.success(try await operation()))
                        } catch {
                            finish(.failure(error))
                        }
                        call.withLock { $0.timer }?.cancel()
                    }
                    let timer = Task {
                        guard (try? await Task.sleep(for: timeout)) != nil else { return }
                        finish(.failure(ParleyError(.timeout, "The call did not complete within its timeout of \(timeout).")))
                        work.cancel()
                    }
                    let cancelled = call.withLock { state in
                        state.work = work
                        state.timer = timer
                        return state.callerCancelled
                    }
                    if cancelled {
                        work.cancel()
                        timer.cancel()
                        finish(.failure(ParleyError(.cancelled, "The call was cancelled.")))
                    }
                }
            } onCancel: {
                let (work, timer) = call.withLock { state in
                    state.callerCancelled = true
                    return (state.work, state.timer)
                }
                work?.cancel()
                timer?.cancel()
            }
        } catch {
            throw ParleyError.wrapping(error, as: .transport, "The call failed: \(error)")
        }
    }
}
