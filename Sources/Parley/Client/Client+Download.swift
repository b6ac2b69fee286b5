import HTTPTypes

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

extension Client {
    /// Sends `endpoint` and streams the response body into the file at `destination`, in constant memory, with
    /// progress.
    ///
    /// ```swift
    /// let download = client.download(GetBackup(), to: URL(filePath: "backup.tar"), resume: true)
    /// for await progress in download.progress { print(progress) }
    /// let file = try await download.value
    /// ```
    ///
    /// The bytes go to `.<name>.parley-partial` in the destination's folder, which is renamed to `destination`
    /// (replacing any file of that name) only once every byte has arrived: a failed download never leaves a
    /// truncated file under the final name. When the server supports ranges and names a validator (a strong `ETag`
    /// or `Last-Modified`), the partial file is kept after a failure; a later call with `resume: true` asks only for
    /// the missing bytes (`Range`, with `If-Range` so that a file changed on the server is fetched whole again),
    /// and starts again from the first byte when the server answers with the whole file. Otherwise the partial file
    /// is removed.
    ///
    /// Limits: the whole download (head and body) must complete within the endpoint's or the client's
    /// ``Configuration/timeout`` when one is set (``ParleyError/Kind/timeout``); the head must come within
    /// ``Configuration/responseHeadTimeout`` and each chunk within ``Configuration/streamIdleTimeout`` (60 s each by
    /// default); and the file may not grow past ``Configuration/maxDownloadSize`` (4 GiB by default;
    /// ``ParleyError/Kind/bodyTooLarge``, and the partial file is removed). A server that sends an endless body
    /// therefore cannot fill the disk.
    ///
    /// The status code is validated as for ``send(_:)``; the endpoint's decoder is not used.
    public func download<E: Endpoint>(
        _ endpoint: E,
        to destination: URL,
        resume: Bool = false,
        onProgress: (@Sendable (TransferProgress) -> Void)? = nil
    ) -> Transfer<DownloadResult> {
        let reporter = ProgressReporter(callback: onProgress)
        return Transfer(reporter: reporter) { () throws(ParleyError) in
            let transfer = { @Sendable () async throws(ParleyError) -> DownloadResult in
                try await self.transfer(endpoint, to: destination, resume: resume, reporter: reporter)
            }
            do {
                guard let timeout = endpoint.timeout ?? self.configuration.timeout else { return try await transfer() }
                return try await Deadline.run(
                    within: timeout,
                    expired: {
                        ParleyError(
                            .timeout,
                            "The download did not complete within its timeout of \(timeout) (the endpoint's timeout, or "
                                + "Client.Configuration.timeout), which covers the whole body; raise it for large files."
                        )
                    },
                    transfer
                )
            } catch {
                let failure = Pipeline.classify(error)
                guard let request = try? self.makeRequestHead(endpoint) else { throw failure }
                throw Pipeline.failure(failure, request: request)
            }
        }
    }

    /// The download's requests and the writing of its body (``download(_:to:resume:onProgress:)``).
    private func transfer<E: Endpoint>(
        _ endpoint: E,
        to destination: URL,
        resume: Bool,
        reporter: ProgressReporter
    ) async throws(ParleyError) -> DownloadResult {
        let partial = try PartialDownload(destination: destination)
        let url = try RequestTarget.text(of: self.makeRequestHead(endpoint), baseURL: nil)
        var start = resume ? partial.resumable(url: url) : nil
        if start == nil { partial.discard() }
        while true {
            // The file's own bytes: a compressed coding would make ranges and lengths count other bytes.
            var headers: HTTPFields = [.acceptEncoding: "identity"]
            if let start {
                headers[.range] = "bytes=\(start.offset)-"
                headers[.ifRange] = start.validator
            }
            let streamed = try await self.stream(endpoint, extraHeaders: headers, timeout: nil, rangeRequested: start != nil)
            let response = streamed.response
            if response.status.code == 416, let offset = start?.offset {
                // The partial file may already be whole; otherwise it does not match: start again.
                if PartialDownload.contentRange(of: response)?.total == offset {
                    try partial.complete()
                    return DownloadResult(location: destination, response: response, bytes: offset, resumedFrom: offset)
                }
                partial.discard()
                start = nil
                continue
            }
            var offset: Int64 = 0
            if response.status.code == 206, let start {
                guard PartialDownload.contentRange(of: response)?.start == start.offset else {
                    partial.discard()
                    throw Self.badRange(response, expected: start.offset)
                }
                offset = start.offset
            }
            return try await Self.write(
                streamed,
                to: partial,
                from: offset,
                url: url,
                destination: destination,
                reporter: reporter,
                limit: configuration.maxDownloadSize
            )
        }
    }

    /// Writes the body into the partial file after `offset` bytes, then moves it into place.
    private static func write(
        _ streamed: StreamedResponse,
        to partial: PartialDownload,
        from offset: Int64,
        url: String,
        destination: URL,
        reporter: ProgressReporter,
        limit: Int64?
    ) async throws(ParleyError) -> DownloadResult {
        let response = streamed.response
        var validator = PartialDownload.validator(of: response)
        let total: Int64? =
            if response.status.code == 206 { PartialDownload.contentRange(of: response)?.total } else {
                streamed.body.declaredLength
            }
        if let limit, let total, total > limit {
            // Nothing to resume: the whole file is over the limit.
            partial.discard()
            throw Self.tooLarge(limit: limit, what: "declares \(total) bytes").attaching(response: response)
        }
        let descriptor = try partial.open(appending: offset > 0)
        partial.saveRecord(url: url, validator: validator)
        // Written by the loop, which may run in a task of the stream's own (`forEachChunk`).
        let progress = LockedState((written: offset, overLimit: false))
        do throws(ParleyError) {
            defer { POSIXFile.close(descriptor) }
            reporter.report(TransferProgress(completedBytes: offset, totalBytes: total))
            let path = partial.path
            try await streamed.body.forEachChunk { chunk throws(ParleyError) in
                let written = progress.withLock { $0.written }
                if let limit, written + Int64(chunk.count) > limit {
                    progress.withLock { $0.overLimit = true }
                    throw Self.tooLarge(limit: limit, what: "sent more than that")
                }
                let failure = chunk.withUnsafeBytes { POSIXFile.write(descriptor, $0) }
                guard failure == 0 else {
                    throw ParleyError(
                        .transport,
                        "Writing the download to \(path) failed after \(written) bytes: \(POSIXFile.describe(failure))."
                    )
                }
                let now = written + Int64(chunk.count)
                progress.withLock { $0.written = now }
                reporter.report(TransferProgress(completedBytes: now, totalBytes: total))
            }
            let written = progress.withLock { $0.written }
            if let total, written != total {
                throw ParleyError(
                    .transport,
                    "The download ended after \(written) of \(total) bytes: the connection closed before the end of the body."
                )
            }
            try partial.complete()
        } catch {
            // Resuming would only run into the limit again.
            let (written, overLimit) = progress.withLock { ($0.written, $0.overLimit) }
            if overLimit { validator = nil }
            // Keep what arrived when a later call can resume from it; otherwise leave nothing behind.
            if validator == nil { partial.discard() }
            var failure = error.attaching(response: response, onlyIfMissing: true)
            if validator != nil {
                failure.keptDownload = ParleyError.KeptDownload(path: partial.path, bytes: written)
            }
            throw failure
        }
        let written = progress.withLock { $0.written }
        return DownloadResult(location: destination, response: response, bytes: written, resumedFrom: offset)
    }

    private static func tooLarge(limit: Int64, what: String) -> ParleyError {
        ParleyError(
            .bodyTooLarge,
            "The download is larger than the client's limit of \(limit) bytes (the server \(what)); nothing was kept. "
                + "Raise Client.Configuration.maxDownloadSize (or set it to nil) if the file is legitimately this large."
        )
    }

    private static func badRange(_ response: HTTPResponse, expected: Int64) -> ParleyError {
        ParleyError(
            .transport,
            "Asked to resume the download at byte \(expected), the server answered with Content-Range "
                + "\(response.headerFields[.contentRange] ?? "(none)"). The partial file was removed; download again."
        )
        .attaching(response: response)
    }
}
