/// An upload or download under way: its progress as it happens, and its result.
///
/// ```swift
/// let upload = client.upload(PutAvatar(), fromFile: avatarURL)
/// for await progress in upload.progress { print(progress.fractionCompleted ?? 0) }
/// let stored = try await upload.value
/// ```
///
/// The transfer starts at once and runs whether or not anybody reads ``progress`` (which keeps only the newest
/// updates when not read). Cancel it with ``cancel()`` or by cancelling the task that awaits ``value``.
public struct Transfer<Value: Sendable>: Sendable {
    /// Progress updates, in order, each with more bytes than the one before; the sequence ends when the
    /// transfer does, successful or not.
    public let progress: AsyncStream<TransferProgress>
    let task: Task<Value, any Error>

    init(reporter: ProgressReporter, operation: @escaping @Sendable () async throws(ParleyError) -> Value) {
        progress = reporter.updates
        // Unstructured: the transfer runs while its caller reads `progress`; `value` and `cancel()` own it.
        task = Task {
            defer { reporter.finish() }
            return try await operation()
        }
    }

    /// The result, once the transfer is done. Cancelling the awaiting task cancels the transfer.
    public var value: Value {
        get async throws(ParleyError) {
            try await task.callerValue("The transfer")
        }
    }

    /// Cancels the transfer: the connection is closed and ``value`` throws ``ParleyError/Kind/cancelled``.
    public func cancel() {
        task.cancel()
    }
}
