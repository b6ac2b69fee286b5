import HTTPTypes
import Parley

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension MCPStreamableHTTPChannel {
    /// Opens the `GET` event stream on which the server sends requests and notifications unprompted (such as
    /// `notifications/tools/list_changed`), and keeps it open until ``close()``: a stream that ends or breaks is
    /// opened again after `reconnect`'s wait, sending `Last-Event-ID` when the server gave ids.
    ///
    /// Call it after `initialize`, so the stream belongs to the session. It returns once the server answered the first
    /// `GET` (the stream is open, or refused), so that nothing the server sends from then on is missed. A server that
    /// offers no such stream answers `405`, and then the channel stops asking; so it does when the session is gone
    /// (`404`). Calling it again while it listens does nothing.
    public func listen(reconnect: JSONRPCReconnectPolicy = .default) async {
        await startListening(reconnect)
    }

    /// Opens the `GET` event stream with the default reconnect policy (``listen(reconnect:)``).
    public func openPushStream() async {
        await startListening(.default)
    }

    private func startListening(_ reconnect: JSONRPCReconnectPolicy) async {
        let (opened, continuation) = AsyncStream.makeStream(of: Void.self)
        let started = session.withLock { state -> Bool in
            guard state.listener == nil, !state.closed else { return false }
            state.listener = connection.tasks.run { [self] in await runListener(reconnect, opened: continuation) }
            return true
        }
        guard started else { return }
        // A server that takes the GET and never answers its head holds up no one for long.
        _ = try? await Deadline.run(within: .seconds(10), expired: { CancellationError() }) {
            for await _ in opened { break }
        }
    }

    private func runListener(_ policy: JSONRPCReconnectPolicy, opened: AsyncStream<Void>.Continuation) async {
        defer { opened.finish() }
        var lastEventID = ""
        var failures = 0
        while !Task.isCancelled {
            var fields = sessionHeaders(base: headers)
            fields.set("Accept", "text/event-stream")
            if !lastEventID.isEmpty { fields.set("Last-Event-ID", lastEventID) }
            do throws(ParleyError) {
                let streamed = try await client.stream(Message(path: path, headers: fields, method: .get))
                opened.yield()
                let code = streamed.response.status.code
                if code == 405 || code == 404 { return }
                if (200...299).contains(code), MediaType(of: streamed.response) == .eventStream {
                    var parser = ServerSentEventParser(maxEventSize: maxMessageSize, lastEventID: lastEventID)
                    defer { lastEventID = parser.lastEventID }
                    for try await chunk in streamed.body {
                        for event in try parser.parse(chunk) {
                            failures = 0
                            _ = route(Data(event.data.utf8), answering: [], head: nil)
                        }
                    }
                }
            } catch  where error.kind == .cancelled {
                return
            } catch {
                // Broken or refused: tried again below, within the policy.
            }
            opened.yield()  // the first attempt failed: the caller does not wait for the retries
            failures += 1
            if let limit = policy.maxAttempts, failures > limit { return }
            do {
                try await Task.sleep(for: policy.delay(beforeAttempt: failures))
            } catch {
                return
            }
        }
    }
}
