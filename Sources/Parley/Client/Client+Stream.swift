public import HTTPTypes

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
    /// client's timeout limits the wait for the head, not the reading of the body. Stop reading (leave the loop,
    /// cancel the task) to close the connection.
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
            var (request, requestBody) = try self.makeRequest(endpoint, body: body)
            for field in extraHeaders where request.headerFields[field.name] == nil {
                request.headerFields.append(field)
            }
            do throws(ParleyError) {
                let (response, responseBody) = try await self.run(
                    request,
                    body: requestBody,
                    context: CallContext(endpointName: endpoint.name, isIdempotent: endpoint.isIdempotent)
                )
                // A resumed download expects 206 or 416, which are the server's answers to the Range it sent.
                let code = response.status.code
                if !(rangeRequested && (code == 206 || code == 416)) {
                    try await self.validateHead(endpoint, response: response, body: responseBody)
                }
                return StreamedResponse(response: response, body: ByteStream(responseBody, subject: "the response of \(endpoint.name)"))
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
