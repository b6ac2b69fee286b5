#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import HTTPTypes

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
    /// The status code is validated as for ``send(_:)``; the endpoint's decoder is not used.
    public func download<E: Endpoint>(
        _ endpoint: E,
        to destination: URL,
        resume: Bool = false,
        onProgress: (@Sendable (TransferProgress) -> Void)? = nil
    ) -> Transfer<DownloadResult> {
        let reporter = ProgressReporter(callback: onProgress)
        return Transfer(reporter: reporter) { () throws(ParleyError) in
            let partial = try PartialDownload(destination: destination)
            let url = try self.makeRequestHead(endpoint).absoluteURLString(baseURL: nil)
            var start = resume ? partial.resumable(url: url) : nil
            if start == nil { partial.discard() }
            while true {
                // The file's own bytes: a compressed coding would make ranges and lengths count other bytes.
                var headers: HTTPFields = [.acceptEncoding: "identity"]
                if let start {
                    headers[.range] = "bytes=\(start.offset)-"
                    headers[.ifRange] = start.validator
                }
                let streamed = try await self.stream(endpoint, extraHeaders: headers, rangeRequested: start != nil)
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
                return try await Self.write(streamed, to: partial, from: offset, url: url, destination: destination, reporter: reporter)
            }
        }
    }

    /// Writes the body into the partial file after `offset` bytes, then moves it into place.
    private static func write(
        _ streamed: StreamedResponse,
        to partial: PartialDownload,
        from offset: Int64,
        url: String,
        destination: URL,
        reporter: ProgressReporter
    ) async throws(ParleyError) -> DownloadResult {
        let response = streamed.response
        let validator = PartialDownload.validator(of: response)
        let total: Int64? =
            if response.status.code == 206 { PartialDownload.contentRange(of: response)?.total } else { streamed.body.declaredLength }
        let descriptor = try partial.open(appending: offset > 0)
        partial.saveRecord(url: url, validator: validator)
        var written = offset
        do throws(ParleyError) {
            defer { POSIXFile.close(descriptor) }
            reporter.report(TransferProgress(completedBytes: written, totalBytes: total))
            var chunks = streamed.body.makeAsyncIterator()
            while let chunk = try await chunks.next() {
                let failure = chunk.withUnsafeBytes { POSIXFile.write(descriptor, $0) }
                guard failure == 0 else {
                    throw ParleyError(
                        .transport,
                        "Writing the download to \(partial.path) failed after \(written) bytes: \(POSIXFile.describe(failure))."
                    )
                }
                written += Int64(chunk.count)
                reporter.report(TransferProgress(completedBytes: written, totalBytes: total))
            }
            if let total, written != total {
                throw ParleyError(
                    .transport,
                    "The download ended after \(written) of \(total) bytes: the connection closed before the end of the body."
                )
            }
            try partial.complete()
        } catch {
            // Keep what arrived when a later call can resume from it; otherwise leave nothing behind.
            if validator == nil { partial.discard() }
            var failure = error
            if failure.response == nil { failure.response = response }
            if validator != nil {
                failure.message += " The \(written) bytes received are kept in \(partial.path); download again with resume: true to continue."
            }
            throw failure
        }
        return DownloadResult(location: destination, response: response, bytes: written, resumedFrom: offset)
    }

    private static func badRange(_ response: HTTPResponse, expected: Int64) -> ParleyError {
        var error = ParleyError(
            .transport,
            "Asked to resume the download at byte \(expected), the server answered with Content-Range "
                + "\(response.headerFields[.contentRange] ?? "(none)"). The partial file was removed; download again."
        )
        error.response = response
        return error
    }
}
