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
    /// Call it after `initialize`, so the stream belongs to the session. A server that offers no such stream answers
    /// `405`, and then the channel stops asking; so it does when the session is gone (`404`). Calling it again while
    /// it listens does nothing.
    public func listen(reconnect: JSONRPCReconnectPolicy = .default) {
        session.withLock { state in
            guard state.listener == nil, !state.closed else { return }
            state.listener = Task { [self] in await runListener(reconnect) }
        }
    }

    private func runListener(_ policy: JSONRPCReconnectPolicy) async {
        var lastEventID = ""
        var failures = 0
        while !Task.isCancelled {
            var fields = sessionHeaders(base: headers)
            fields.set("Accept", "text/event-stream")
            if !lastEventID.isEmpty { fields.set("Last-Event-ID", lastEventID) }
            do throws(ParleyError) {
                let streamed = try await client.stream(Message(path: path, headers: fields, method: .get))
                let code = streamed.response.status.code
                if code == 405 || code == 404 { return }
                if (200...299).contains(code), Self.mediaType(of: streamed.response) == "text/event-stream" {
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
