extension Client {
    /// The Server-Sent Events of `endpoint` (`text/event-stream`), reconnecting after drops.
    ///
    /// ```swift
    /// for try await event in client.events(Notifications()) {
    ///     print(event.type, event.data)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - endpoint: the stream's endpoint; its method, path, query and headers are used.
    ///   - lastEventID: the ID of the last event seen in an earlier session, sent as `Last-Event-ID` on the first
    ///     connection so the server can continue from there.
    ///   - reconnect: when to reconnect; ``ServerSentEventReconnectPolicy/never`` to read one connection only.
    ///   - maxEventSize: the most bytes a line or an event's data may hold (``ParleyError/Kind/bodyTooLarge``).
    public func events<E: Endpoint>(
        _ endpoint: E,
        lastEventID: String = "",
        reconnect: ServerSentEventReconnectPolicy = .default,
        maxEventSize: Int = 8 << 20
    ) -> ServerSentEventStream {
        ServerSentEventStream(
            connect: { headers async throws(ParleyError) in
                try await self.stream(endpoint, extraHeaders: headers, timeout: endpoint.timeout ?? self.configuration.timeout)
            },
            lastEventID: lastEventID,
            policy: reconnect,
            maxEventSize: maxEventSize
        )
    }
}
