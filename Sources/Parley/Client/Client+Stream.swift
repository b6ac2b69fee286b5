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
        try await stream(endpoint, extraHeaders: [:])
    }

    /// ``stream(_:)`` with header fields added to the request (those the endpoint does not set itself).
    func stream<E: Endpoint>(
        _ endpoint: E,
        extraHeaders: HTTPFields,
        body: RequestBody? = nil,
        rangeRequested: Bool = false
    ) async throws(ParleyError) -> StreamedResponse {
        let operation = { @Sendable () async throws(ParleyError) -> StreamedResponse in
            // The slot first, then the request: a call waiting for a slot holds no encoded body.
            let permit = try await self.acquireSlot(for: endpoint)
            var (request, requestBody): (HTTPRequest, HTTPBody?)
            do throws(ParleyError) {
                (request, requestBody) = try self.makeRequest(endpoint, body: body)
            } catch {
                permit?.release()
                throw error
            }
            for field in extraHeaders where request.headerFields[field.name] == nil {
                request.headerFields.append(field)
            }
            do throws(ParleyError) {
                let (response, responseBody) = try await self.run(
                    request,
                    body: requestBody,
                    context: CallContext(endpointName: endpoint.name, isIdempotent: endpoint.isIdempotent),
                    permit: permit,
                    headTimeout: self.headTimeout(for: endpoint)
                )
                // A resumed download expects 206 or 416, which are the server's answers to the Range it sent.
                let code = response.status.code
                if !(rangeRequested && (code == 206 || code == 416)) {
                    try await self.validateHead(endpoint, response: response, body: responseBody)
                }
                let stream = ByteStream(
                    responseBody,
                    subject: "the response of \(endpoint.name)",
                    idleTimeout: self.configuration.streamIdleTimeout
                )
                return StreamedResponse(response: response, body: stream)
            } catch {
                var error = error
                if error.kind != .cancelled, Task.isCancelled {
                    error = ParleyError(.cancelled, "The call was cancelled before its response arrived.", underlying: error)
                }
                if error.request == nil { error.request = Self.summary(of: request) }
                throw error
            }
        }
        guard let timeout = endpoint.timeout ?? configuration.timeout else { return try await operation() }
        return try await Self.withTimeout(timeout, operation)
    }
}
