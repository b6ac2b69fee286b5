extension Client {
    private enum Outcome<Value: Sendable>: Sendable {
        case finished(Value)
        case timedOut
    }

    /// Runs `operation`, failing with ``ParleyError/Kind/timeout`` (and cancelling it) after `timeout`.
    static func withTimeout<Value: Sendable>(
        _ timeout: Duration,
        _ operation: @escaping @Sendable () async throws(ParleyError) -> Value
    ) async throws -> Value {
        try await withThrowingTaskGroup(of: Outcome<Value>.self) { group in
            group.addTask { .finished(try await operation()) }
            group.addTask {
                try await Task.sleep(for: timeout)
                return .timedOut
            }
            defer { group.cancelAll() }
            switch try await group.next() {
            case .finished(let value):
                return value
            case .timedOut:
                throw ParleyError(.timeout, "The call did not complete within its timeout of \(timeout).")
            case nil:
                throw ParleyError(.cancelled, "The call was cancelled.")
            }
        }
    }
}
