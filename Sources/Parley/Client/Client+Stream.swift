public import HTTPTypes
import OpenAPIRuntime

/// A response whose body has not been read yet: the head, and the body as a ``ByteStream``.
public struct StreamedResponse: Sendable {
    /// The response head: status and header fields.
    public let response: HTTPResponse
    /// The body, read as it arrives.
    public let body: ByteStream
}

extension Client {
    /// Sends `endpoint` and returns as soon as the response head has arrived and passed validation (status code,
    /// content type), with the body to be read as a stream.
    ///
    /// ```swift
    /// let log = try await client.stream(FollowLog())
    /// for try await line in log.body.lines() { print(line) }
    /// ```
    ///
    /// The endpoint's decoder and response validators are not used (they need the whole body). The endpoint's or the
    /// client's timeout limits the wait for the head, not the reading of the body; so does
    /// ``Configuration/responseHeadTimeout`` (default 60 s). Reading the body fails with ``ParleyError/Kind/timeout``
    /// when no chunk arrives for ``Configuration/streamIdleTimeout`` (default 60 s; `nil` waits without limit). Stop
    /// reading (leave the loop, cancel the task) to close the connection.
    public func stream<E: Endpoint>(_ endpoint: E) async throws(ParleyError) -> StreamedResponse {
        try await stream(endpoint, extraHeaders: [:], timeout: endpoint.timeout ?? configuration.timeout)
    }

    /// ``stream(_:)`` with header fields added to the request (those the endpoint does not set itself), and `timeout`
    /// on the wait for the head (a download sets its own, over the whole transfer).
    func stream<E: Endpoint>(
        _ endpoint: E,
        extraHeaders: HTTPFields,
        timeout: Duration?,
        body: RequestBody? = nil,
        rangeRequested: Bool = false
    ) async throws(ParleyError) -> StreamedResponse {
        let idleTimeout = configuration.streamIdleTimeout
        return try await pipeline.execute(endpoint, body: body, extraHeaders: extraHeaders, timeout: timeout) {
            response,
            storage throws(ParleyError) in
            // A resumed download expects 206 or 416, which are the server's answers to the Range it sent.
            let code = response.status.code
            if !(rangeRequested && (code == 206 || code == 416)) {
                try await self.validateHead(endpoint, response: response, body: storage)
            }
            let stream = ByteStream(storage.body, subject: "the response of \(endpoint.name)", idleTimeout: idleTimeout)
            return StreamedResponse(response: response, body: stream)
        }
    }
}
