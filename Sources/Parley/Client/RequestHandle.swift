/// A call started with a completion handler; cancel it to cancel the request.
public struct RequestHandle: Sendable {
    let task: Task<Void, Never>

    /// Cancels the request. The completion handler then receives ``ParleyError/Kind/cancelled``
    /// (unless the call already completed).
    public func cancel() {
        task.cancel()
    }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { task.isCancelled }

    /// Waits until the call has finished and its completion handler has returned.
    public func wait() async {
        await task.value
    }
}

extension Client {
    /// Sends `endpoint` and calls `completion` exactly once with the result (TezosKit's callback style).
    ///
    /// The handler runs on an arbitrary executor; hop to your UI actor inside it if needed.
    @discardableResult
    public func send<E: Endpoint>(
        _ endpoint: E,
        completion: @escaping @Sendable (Result<E.Response, ParleyError>) -> Void
    ) -> RequestHandle {
        RequestHandle(
            // Unstructured: a call with a completion handler returns at once; the handle cancels or awaits it.
            task: Task {
                do throws(ParleyError) {
                    completion(.success(try await send(endpoint)))
                } catch {
                    completion(.failure(error))
                }
            }
        )
    }
}
