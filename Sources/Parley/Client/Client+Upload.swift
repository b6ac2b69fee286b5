#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

extension Client {
    /// Sends `endpoint` with the file at `file` as its body, streamed from disk in constant memory, and reports
    /// progress (bytes taken by the transport, out of the file's size).
    ///
    /// ```swift
    /// let upload = client.upload(PutAvatar(), fromFile: URL(filePath: "avatar.png"), contentType: "image/png")
    /// for await progress in upload.progress { print(progress) }
    /// let stored = try await upload.value
    /// ```
    ///
    /// The request has the file's size as `Content-Length`. The endpoint's own ``Endpoint/body`` is not used; its
    /// `Content-Type` header, if it sets one, wins over `contentType`. A missing or unreadable file fails
    /// ``Transfer/value`` with ``ParleyError/Kind/invalidRequest`` before anything is sent, and a file whose size
    /// changes while it is sent fails it rather than send a mixed body. The body is replayable: a middleware that
    /// sends the request again (a retry) reads the file again from the start, and progress starts again with it.
    /// A server may answer before it has read the whole body (nginx does when it does not need it): the upload then
    /// ends with the call, the rest of the file is neither read nor sent, and the last progress is what the transport
    /// had taken (URLSession on Linux sends the whole body before it hands over any answer).
    ///
    /// - Parameters:
    ///   - endpoint: what to call; its response is decoded as for ``send(_:)``.
    ///   - file: a local file URL.
    ///   - contentType: the body's media type. Default: `application/octet-stream`.
    ///   - onProgress: called with each progress update as well (on the transport's task; keep it short).
    public func upload<E: Endpoint>(
        _ endpoint: E,
        fromFile file: URL,
        contentType: String = "application/octet-stream",
        onProgress: (@Sendable (TransferProgress) -> Void)? = nil
    ) -> Transfer<E.Response> {
        upload(endpoint, body: .file(file, contentType: contentType), onProgress: onProgress)
    }

    /// Sends `endpoint` with `body` instead of its own, reporting progress as the transport takes the bytes.
    /// Use it for a ``MultipartForm`` (``RequestBody/multipart(_:)``), whose total length is known up front.
    public func upload<E: Endpoint>(
        _ endpoint: E,
        body: RequestBody,
        onProgress: (@Sendable (TransferProgress) -> Void)? = nil
    ) -> Transfer<E.Response> {
        let reporter = ProgressReporter(callback: onProgress)
        return Transfer(reporter: reporter) { () throws(ParleyError) in
            try await self.response(for: endpoint, body: body, progress: reporter).value
        }
    }
}
