import Parley

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension JSONRPCClient {
    /// Calls `method` with a progress token, and returns the call under way: the peer's progress notifications for
    /// that token as they arrive (``JSONRPCProgressCall/progress``), and the result (``JSONRPCProgressCall/value``).
    ///
    /// ```swift
    /// let call = rpc.call(MCPCallTool(name: "index"), progress: .mcp)
    /// for await update in call.progress { print(update.message ?? "", update.fractionCompleted ?? 0) }
    /// let result = try await call.value
    /// ```
    ///
    /// The token is generated (`"parley-"` and a UUID) and put in the parameters by `style`. Progress needs a channel
    /// that carries the peer's notifications: stdio, WebSocket and MCP Streamable HTTP do; over plain HTTP
    /// (``JSONRPCHTTPChannel``) the call runs and ``JSONRPCProgressCall/progress`` ends with no update.
    ///
    /// - Parameters:
    ///   - method: The call; its parameters must be named (a JSON object) or absent.
    ///   - style: Where the token goes and which notifications report on it.
    ///   - timeout: The longest the call may take, counted from its start, however much progress comes; `nil` for the
    ///     client's ``timeout``. The same as ``call(_:progress:limits:)`` with only a total.
    public func call<Method: JSONRPCMethod>(
        _ method: Method,
        progress style: JSONRPCProgress,
        timeout: Duration? = nil
    ) -> JSONRPCProgressCall<Method.Result> {
        call(method, progress: style, limits: JSONRPCCallLimits(total: timeout))
    }

    /// Calls `method` with a progress token within `limits`: each progress notification for the token restarts the
    /// idle clock, and the total is a hard cap that no progress extends. Returns the call under way, as
    /// ``call(_:progress:timeout:)`` does.
    ///
    /// ```swift
    /// let limits = JSONRPCCallLimits(total: .seconds(300), idle: .seconds(10))
    /// let call = rpc.call(MCPCallTool(name: "index"), progress: .mcp, limits: limits)
    /// for await update in call.progress { print(update.message ?? "") }
    /// let result = try await call.value   // timeout after 10 s without progress, or 300 s in all
    /// ```
    ///
    /// When either limit passes, ``JSONRPCProgressCall/value`` throws ``/Parley/ParleyError/Kind/timeout`` naming it,
    /// and the peer is told (``cancellation``). On a channel that carries no notifications (plain HTTP) nothing
    /// restarts the idle clock: it counts from the send, as for ``call(_:limits:)``.
    ///
    /// - Parameters:
    ///   - method: The call; its parameters must be named (a JSON object) or absent.
    ///   - style: Where the token goes and which notifications report on it.
    ///   - limits: The call's total (`nil`: the client's ``timeout``) and idle limit.
    public func call<Method: JSONRPCMethod>(
        _ method: Method,
        progress style: JSONRPCProgress,
        limits: JSONRPCCallLimits
    ) -> JSONRPCProgressCall<Method.Result> {
        let token = JSONValue.string("parley-\(UUID().uuidString.lowercased())")
        let (updates, continuation) = AsyncStream.makeStream(
            of: JSONRPCProgressUpdate.self,
            bufferingPolicy: .bufferingNewest(256)
        )
        // Unstructured: the call returns at once, its progress read as it runs; JSONRPCProgressCall awaits or cancels it.
        let task = Task { () async throws -> Method.Result in
            defer { continuation.finish() }
            let params = try style.attach(token, try Self.params(of: method, encoder: encoder))
            // Watching starts before the call is sent, so no notification can arrive unseen.
            let subscription = try channel.watch(style.matcher, key: token)
            let watch = JSONRPCCallWatch(limits, fallback: timeout, watchesProgress: subscription != nil)
            // The forwarding of the updates and the call, in one group.
            let result = await withTaskGroup(of: Void.self) { group -> Result<Method.Result, ParleyError> in
                group.addTask {
                    guard let subscription else { return }
                    do {
                        for try await notification in subscription {
                            watch?.restart()
                            continuation.yield(style.update(notification))
                        }
                    } catch {
                        // The channel closed: the call fails with the reason; the progress simply ends.
                    }
                }
                let result: Result<Method.Result, ParleyError>
                do throws(ParleyError) {
                    result = .success(try await call(WithParams(base: method, params: params), watch: watch))
                } catch {
                    result = .failure(error)
                }
                // Ends the watch; the updates that arrived before the answer are still handed on.
                await subscription?.cancel()
                await group.waitForAll()
                return result
            }
            return try result.get()
        }
        return JSONRPCProgressCall(progress: updates, token: token, task: task)
    }

    /// The parameters of `method` as JSON; `nil` when it has none.
    static func params<Method: JSONRPCMethod>(of method: Method, encoder: JSONEncoder) throws(ParleyError) -> JSONValue? {
        if Method.Params.self == JSONRPCNoParams.self { return nil }
        if let dynamic = method.params as? JSONValue? { return dynamic }
        do {
            return try JSONValue(encoding: method.params, encoder: encoder)
        } catch {
            throw ParleyError(
                .encoding,
                "The parameters of the JSON-RPC call \(method.methodName) could not be encoded: \(error)",
                underlying: error
            )
        }
    }
}

/// A call of `base`'s method with other parameters (such as a progress token added).
struct WithParams<Base: JSONRPCMethod>: JSONRPCMethod {
    typealias Result = Base.Result
    static var name: String { Base.name }
    let base: Base
    let params: JSONValue?
    var methodName: String { base.methodName }
    var isRepeatable: Bool { base.isRepeatable }
    var headerFields: Headers { base.headerFields }
}
