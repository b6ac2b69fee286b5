import Parley

/// The unread notifications of a channel's `incoming` stream: the newest kept within a count and a byte budget (a
/// notification weighs what its message did), the oldest dropped beyond either. The stream pulls from it
/// (`AsyncStream(unfolding:)`), so a notification's bytes are given back as soon as the consumer takes it.
package final class UnreadNotifications: Sendable {
    private struct State {
        /// The unread ones from `head` on; the slots before it are emptied as they are taken (and dropped in batches),
        /// so that a taken or dropped notification's memory goes at once.
        var items: [JSONRPCIncoming?] = []
        /// The index of the oldest unread item in `items`.
        var head = 0
        var bytes = 0
        var waiters: [CheckedContinuation<JSONRPCIncoming?, Never>] = []
        /// No more will come: the rest are read, then the stream ends.
        var finished = false

        var count: Int { items.count - head }

        mutating func popFirst() -> JSONRPCIncoming? {
            guard head < items.count, let first = items[head] else { return nil }
            items[head] = nil
            head += 1
            bytes -= first.byteCount
            if head >= 64, head * 2 >= items.count {
                items.removeFirst(head)
                head = 0
            }
            return first
        }
    }

    private let state = LockedState(State())
    /// The most notifications kept unread.
    package let maxCount: Int
    /// The most bytes kept unread (a single notification larger than this is kept alone).
    package let maxBytes: Int

    package init(maxCount: Int, maxBytes: Int) {
        self.maxCount = max(maxCount, 1)
        self.maxBytes = max(maxBytes, 1)
    }

    /// The stream that reads them.
    package var stream: AsyncStream<JSONRPCIncoming> {
        AsyncStream(unfolding: { await self.next() })
    }

    /// Adds `notification`, handing it straight to a waiting reader; drops the oldest beyond the budgets.
    package func push(_ notification: JSONRPCIncoming) {
        state.withLock { state in
            guard !state.finished else { return }
            if !state.waiters.isEmpty {
                state.waiters.removeFirst().resume(returning: notification)
                return
            }
            state.items.append(notification)
            state.bytes += notification.byteCount
            while state.count > maxCount || (state.bytes > maxBytes && state.count > 1) { _ = state.popFirst() }
        }
    }

    /// No more notifications: readers get those kept, then the end.
    package func finish() {
        state.withLock { state in
            state.finished = true
            for waiter in state.waiters { waiter.resume(returning: nil) }
            state.waiters = []
        }
    }

    /// The oldest unread notification, waiting for one; `nil` once finished and read, or when the reader's task is
    /// cancelled (which ends the stream, as cancelling an `AsyncStream`'s reader does).
    private func next() async -> JSONRPCIncoming? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<JSONRPCIncoming?, Never>) in
                state.withLock { state in
                    if let first = state.popFirst() {
                        continuation.resume(returning: first)
                    } else if state.finished || Task.isCancelled {
                        continuation.resume(returning: nil)
                    } else {
                        state.waiters.append(continuation)
                    }
                }
            }
        } onCancel: {
            state.withLock { state in
                state.finished = true
                state.items = []
                state.head = 0
                state.bytes = 0
                for waiter in state.waiters { waiter.resume(returning: nil) }
                state.waiters = []
            }
        }
    }
}

/// The sizes of a subscription's unread notifications, oldest first, as learned from its stream's yields (an
/// `AsyncThrowingStream` says how many it holds; the ones gone were the oldest).
package struct UnreadSizes: Sendable {
    private var sizes: [Int] = []
    private var head = 0
    /// The bytes of the unread notifications.
    package private(set) var bytes = 0

    package init() {}

    /// One of `size` bytes was yielded; the stream now holds `held`.
    package mutating func yielded(_ size: Int, held: Int) {
        sizes.append(size)
        bytes += size
        while sizes.count - head > held {
            bytes -= sizes[head]
            head += 1
        }
        if head >= 64, head * 2 >= sizes.count {
            sizes.removeFirst(head)
            head = 0
        }
    }
}
