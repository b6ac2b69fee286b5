public import Parley

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension MCPClient {
    /// Subscribes to the changes of the resources `resources` and of the lists `listChanges`, and returns once the
    /// server took the subscription: in the stateless era one `subscriptions/listen` request, whose stream carries the
    /// changes until it is cancelled (returning after the server's `notifications/subscriptions/acknowledged`, or 10 s
    /// without it); in the handshake era `resources/subscribe` for each resource, the changes arriving on the session's
    /// `GET` stream.
    ///
    /// ```swift
    /// let updates = try await mcp.subscribe(resources: ["text://greeting"], listChanges: [.tools])
    /// for try await update in updates { print(update) }
    /// ```
    ///
    /// Needs a channel that carries the server's notifications (MCP Streamable HTTP, stdio).
    public func subscribe(
        resources: [String] = [],
        listChanges: Set<MCPListKind> = []
    ) async throws(ParleyError) -> MCPSubscription {
        let server = try await connect()
        let uris = Set(resources)
        var matchers = listChanges.sorted { $0.rawValue < $1.rawValue }.map { JSONRPCSubscriptionMatcher.method($0.notification) }
        if !uris.isEmpty {
            matchers.append(
                JSONRPCSubscriptionMatcher(method: "notifications/resources/updated") { notification, _ in
                    notification.params?["uri"]?.stringValue.map(uris.contains) ?? false
                }
            )
        }
        guard !matchers.isEmpty else {
            throw ParleyError(
                .invalidRequest,
                "An MCP subscription needs at least one resource or list to follow. Nothing was sent."
            )
        }
        var watches: [JSONRPCSubscription] = []
        for matcher in matchers {
            guard let watch = try rpc.channel.watch(matcher, key: .null) else {
                for watch in watches { await watch.cancel() }
                throw ParleyError(
                    .invalidRequest,
                    "This channel carries no notifications of the server's, so a subscription could not receive any: use "
                        + "MCPStreamableHTTPChannel or a stdio channel."
                )
            }
            watches.append(watch)
        }
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: MCPUpdate.self, bufferingPolicy: .bufferingNewest(1024))
        let acknowledged = Deadline.Signal()
        let acknowledgement =
            server.era.isStateless
            ? try rpc.channel.watch(.method("notifications/subscriptions/acknowledged"), key: .null) : nil
        let listen = listenRequest(resources: resources.sorted(), listChanges: listChanges)
        if !server.era.isStateless {
            for uri in uris.sorted() {
                do throws(ParleyError) {
                    _ = try await send(MCPSubscribeResource(uri: uri), server: server, timeout: nil)
                } catch {
                    for watch in watches { await watch.cancel() }
                    throw error
                }
            }
        }
        // Unstructured: the subscription outlives this call; its consumer's end and cancel() stop it.
        let task = Task {
            await withTaskGroup(of: Void.self) { group in
                for watch in watches {
                    group.addTask {
                        do {
                            for try await notification in watch {
                                guard let update = Self.update(notification) else { continue }
                                continuation.yield(update)
                            }
                        } catch {
                            continuation.finish(throwing: error)
                        }
                    }
                }
                if let acknowledgement {
                    group.addTask {
                        do {
                            for try await _ in acknowledgement { break }
                        } catch {
                            // The channel closed: the subscription ends through its other tasks.
                        }
                        acknowledged.fire()
                    }
                }
                if server.era.isStateless {
                    group.addTask { [self] in
                        do throws(ParleyError) {
                            _ = try await send(listen, server: server, timeout: Self.subscriptionLimit)
                            continuation.finish()
                        } catch {
                            continuation.finish(throwing: error)
                        }
                        acknowledged.fire()
                    }
                }
                // The consumer stopped, the server ended the subscription, or it was cancelled: everything ends.
                for await _ in stream.terminations(of: continuation) { break }
                group.cancelAll()
            }
            continuation.finish()
            for watch in watches { await watch.cancel() }
            await acknowledgement?.cancel()
            if !server.era.isStateless { await unsubscribe(uris.sorted(), server: server) }
        }
        if server.era.isStateless {
            _ = try? await Deadline.run(within: .seconds(10), expired: { CancellationError() }) { await acknowledged.wait() }
        }
        return MCPSubscription(stream: stream, task: task)
    }

    /// A subscription lasts until it is cancelled: its request's limit.
    static let subscriptionLimit: Duration = .seconds(365 * 86_400)

    /// The `subscriptions/listen` request of the stateless era.
    private func listenRequest(resources: [String], listChanges: Set<MCPListKind>) -> MCPMethod<JSONValue> {
        var filter: [String: JSONValue] = [:]
        if !resources.isEmpty { filter["resourceSubscriptions"] = .array(resources.map(JSONValue.string)) }
        if listChanges.contains(.tools) { filter["toolsListChanged"] = true }
        if listChanges.contains(.prompts) { filter["promptsListChanged"] = true }
        if listChanges.contains(.resources) { filter["resourcesListChanged"] = true }
        return MCPMethod(methodName: "subscriptions/listen", params: ["notifications": .object(filter)])
    }

    /// `resources/unsubscribe` for each resource, best effort, after the subscription ended.
    private func unsubscribe(_ uris: [String], server: MCPServerDescription) async {
        guard !uris.isEmpty else { return }
        // Unstructured: the subscription's task is cancelled; the server must still hear of its end, within 10 s.
        await Task { [self] in
            for uri in uris {
                _ = try? await send(MCPUnsubscribeResource(uri: uri), server: server, timeout: .seconds(10))
            }
        }.value
    }

    static func update(_ notification: JSONRPCIncoming) -> MCPUpdate? {
        if notification.method == "notifications/resources/updated" {
            return notification.params?["uri"]?.stringValue.map { .resourceUpdated(uri: $0) }
        }
        return MCPListKind.allCases.first { $0.notification == notification.method }.map(MCPUpdate.listChanged)
    }

    /// The server's log messages (`notifications/message`) at the level asked for (``Configuration/logLevel`` or
    /// ``setLogLevel(_:)``), as they arrive, until the channel closes or the consumer stops: in the stateless era
    /// they arrive on the streams of the requests, in the handshake era on any stream of the session. Logging is
    /// deprecated in 2026-07-28 and still supported.
    ///
    /// - Throws: ``/Parley/ParleyError/Kind/invalidRequest`` on a channel that carries no notifications (plain HTTP).
    public func logMessages() throws(ParleyError) -> AsyncThrowingMapSequence<JSONRPCSubscription, MCPLogMessage> {
        guard let watch = try rpc.channel.watch(.method("notifications/message"), key: .null) else {
            throw ParleyError(.invalidRequest, "This channel carries no notifications of the server's, so no log messages.")
        }
        return watch.map { notification in
            try (notification.params ?? [:]).decode(as: MCPLogMessage.self)
        }
    }
}

extension AsyncThrowingStream {
    /// Ends when the stream terminates (its consumer stopped, or it was finished).
    fileprivate func terminations(of continuation: Continuation) -> AsyncStream<Void> {
        let (ended, signal) = AsyncStream.makeStream(of: Void.self)
        continuation.onTermination = { _ in signal.finish() }
        return ended
    }
}
