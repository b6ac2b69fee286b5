import HTTPTypes
import Parley

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension MCPStreamableHTTPChannel {
    /// Posts `message`; for a call (`ids` not empty) reads its answer from the JSON body or the event stream.
    ///
    /// - Throws: ``SessionExpired`` when the server answered `404` to a message that carried a session id.
    func send(
        _ message: Data,
        ids: [JSONRPCID],
        isInitialize: Bool,
        extra: Headers = [:],
        stateless: Bool = false
    ) async throws -> JSONRPCReply? {
        var fields = isInitialize || stateless ? headers.merging(extra) : sessionHeaders(base: headers.merging(extra))
        fields.set("Accept", "application/json, text/event-stream")
        let hadSession = fields.contains("Mcp-Session-Id")
        let streamed = try await client.stream(Message(path: path, headers: fields, message: message))
        let head = streamed.response
        let status = head.status.code
        guard (200...299).contains(status) else {
            let body = try await Self.collect(streamed.body, limit: ParleyError.excerptLimit, truncating: true)
            if status == 404, hadSession {
                var error = ParleyError(
                    .unacceptableStatus,
                    "The MCP server answered 404 Not Found for the session: it ended or expired, and starting a new one "
                        + "needs the initialize call, which this channel has not sent."
                )
                error = error.attaching(response: head, body: body)
                throw SessionExpired(error: error)
            }
            if !ids.isEmpty, JSONRPCCoding.looksLikeErrorResponse(body) { return JSONRPCReply(data: body, head: head) }
            var error = ParleyError(
                .unacceptableStatus,
                "The MCP server answered HTTP \(status) \(head.status.reasonPhrase) without a JSON-RPC error object."
            )
            error = error.attaching(response: head, body: body)
            throw error
        }
        if isInitialize { try recordSession(head) }
        guard !ids.isEmpty else { return nil }  // 202 Accepted for a notification or an answer; any body is not read
        let reply: JSONRPCReply
        switch MediaType(head.headerFields[.contentType] ?? "").essence {
        case "application/json":
            reply = JSONRPCReply(
                data: try await Self.collect(streamed.body, limit: maxMessageSize, truncating: false),
                head: head
            )
        case "text/event-stream":
            reply = try await readEvents(streamed.body, ids: ids, head: head, resumable: !stateless)
        case let other:
            var error = ParleyError(
                .jsonRPCProtocol,
                "The MCP server answered a call with the content type \(other.isEmpty ? "(none)" : PrintableText.escaping(other)), "
                    + "where Streamable HTTP answers with application/json or text/event-stream."
            )
            error = error.attaching(response: head)
            throw error
        }
        if isInitialize { recordProtocolVersion(reply.data) }
        return reply
    }

    /// Reads Server-Sent Events until the answer to `ids`: the server's notifications and requests on the way are
    /// routed, and a stream that ends before the answer is resumed with `Last-Event-ID`.
    func readEvents(
        _ body: ByteStream,
        ids: [JSONRPCID],
        head: HTTPResponse,
        resumable: Bool = true
    ) async throws(ParleyError) -> JSONRPCReply {
        var parser = ServerSentEventParser(maxEventSize: maxMessageSize)
        var body = body
        var resumptions = 0
        while true {
            if let reply = try await readUntilAnswer(body, parser: &parser, ids: ids, head: head) {
                return reply
            }
            parser.finish()
            guard resumable else {
                var error = ParleyError(
                    .transport,
                    "The MCP server's event stream of the call (id \(ids.map(\.description).joined(separator: ", "))) ended "
                        + "or broke before its answer. In the stateless era (2026-07-28) a stream cannot be resumed: "
                        + "MCPClient sends a call that is safe to repeat again with a new id; call any other again "
                        + "yourself if it should be.",
                    underlying: MCPStreamBroke()
                )
                error = error.attaching(response: head)
                throw error
            }
            guard !parser.lastEventID.isEmpty, resumptions < maxResumptions else {
                var error = ParleyError(
                    .transport,
                    "The MCP server ended the event stream of the call (id \(ids.map(\.description).joined(separator: ", "))) "
                        + "before answering it"
                        + (parser.lastEventID.isEmpty
                            ? ", and gave its events no ids to resume from."
                            : ", after resuming it with Last-Event-ID \(resumptions) times (maxResumptions).")
                )
                error = error.attaching(response: head)
                throw error
            }
            resumptions += 1
            body = try await resume(after: parser.lastEventID)
        }
    }

    /// Reads one connection's events: the answer to `ids`, or `nil` when the stream ended or broke before it.
    private func readUntilAnswer(
        _ body: ByteStream,
        parser: inout ServerSentEventParser,
        ids: [JSONRPCID],
        head: HTTPResponse
    ) async throws(ParleyError) -> JSONRPCReply? {
        do {
            for try await chunk in body {
                for event in try parser.parse(chunk) {
                    if let reply = route(Data(event.data.utf8), answering: ids, head: head) { return reply }
                }
            }
        } catch  where error.kind == .transport {
            // The connection broke: resumed like a stream the server ended.
        }
        return nil
    }

    /// Opens a `GET` event stream that continues after the event `lastEventID`.
    func resume(after lastEventID: String) async throws(ParleyError) -> ByteStream {
        var fields = sessionHeaders(base: headers)
        fields.set("Accept", "text/event-stream")
        fields.set("Last-Event-ID", lastEventID)
        let streamed = try await client.stream(Message(path: path, headers: fields, method: .get))
        let head = streamed.response
        guard (200...299).contains(head.status.code), MediaType(of: head) == .eventStream else {
            var error = ParleyError(
                .unacceptableStatus,
                "The MCP server answered the GET resuming an event stream (Last-Event-ID) with HTTP \(head.status.code) "
                    + "\(head.status.reasonPhrase), not an event stream."
            )
            error = error.attaching(response: head)
            throw error
        }
        return streamed.body
    }

    /// One message from an event stream: the reply when it answers `ids`; otherwise routed (notifications to their
    /// watchers or ``incoming``, requests to the router) and `nil`.
    func route(_ message: Data, answering ids: [JSONRPCID], head: HTTPResponse?) -> JSONRPCReply? {
        guard !message.isEmpty else { return nil }  // a priming event, or a comment-only one
        if !ids.isEmpty, JSONRPCInbound.answers(message, ids: ids) { return JSONRPCReply(data: message, head: head) }
        let admitted = connection.inbound.admit(message) { [serverRequests] answer in await serverRequests.answer(answer) }
        // Best effort, as on every channel: an answer that could not be posted leaves the server's request unanswered.
        serverRequests.take(admitted) { [weak self] answer in _ = try? await self?.send(answer, ids: [], isInitialize: false) }
        return nil
    }

    /// Keeps the session id the server assigned in its answer to `initialize`.
    func recordSession(_ head: HTTPResponse) throws(ParleyError) {
        guard let name = HTTPField.Name("Mcp-Session-Id"), let id = head.headerFields[name] else {
            session.withLock {
                $0.id = nil
                $0.lost = false
            }
            return
        }
        // The specification: visible ASCII only (0x21 to 0x7E). A longer or stranger id is not echoed to the server.
        guard (1...1024).contains(id.utf8.count), id.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            var error = ParleyError(
                .jsonRPCProtocol,
                "The MCP server assigned a session id of \(id.utf8.count) bytes that are not all visible ASCII (or more than "
                    + "1024), which the specification forbids; it is not sent back."
            )
            error = error.attaching(response: head)
            throw error
        }
        session.withLock {
            $0.id = id
            $0.lost = false
        }
    }

    /// Keeps the protocol version the server chose (`result.protocolVersion` of the answer to `initialize`).
    func recordProtocolVersion(_ answer: Data) {
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: answer),
            let version = value["result"]?["protocolVersion"]?.stringValue,
            (1...64).contains(version.utf8.count), version.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
        else { return }
        session.withLock { $0.protocolVersion = version }
    }

    /// The body's bytes, at most `limit` of them: more fails with ``/Parley/ParleyError/Kind/bodyTooLarge``, unless
    /// `truncating`, which keeps the first `limit` and stops reading.
    static func collect(_ body: ByteStream, limit: Int, truncating: Bool) async throws(ParleyError) -> Data {
        var data = Data()
        for try await chunk in body {
            if data.count + chunk.count > limit {
                if truncating {
                    data.append(contentsOf: chunk.prefix(limit - data.count))
                    return data
                }
                throw ParleyError(
                    .bodyTooLarge,
                    "The MCP server's message is larger than the channel's limit of \(limit) bytes (maxMessageSize)."
                )
            }
            data.append(contentsOf: chunk)
        }
        return data
    }
}
