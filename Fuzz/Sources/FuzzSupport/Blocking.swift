import Dispatch
import Synchronization

/// Runs async code to completion from the synchronous libFuzzer callback.
public enum Blocking {
    private final class Slot<Value: Sendable>: Sendable {
        let value = Mutex<Value?>(nil)
        let done = DispatchSemaphore(value: 0)
    }

    /// Starts `operation` in a task and waits for its result. The code under test never waits on anything but
    /// itself, so the wait ends; libFuzzer's `-timeout` catches one that does not.
    public static func run<Value: Sendable>(_ operation: @escaping @Sendable () async -> Value) -> Value {
        let slot = Slot<Value>()
        Task {
            let result = await operation()
            slot.value.withLock { $0 = result }
            slot.done.signal()
        }
        slot.done.wait()
        guard let result = slot.value.withLock({ $0.take() }) else {
            FuzzCheck.fail("the task finished without a result")
        }
        return result
    }
}
