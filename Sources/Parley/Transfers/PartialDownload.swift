import HTTPTypes

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The file a download writes to before it is complete, next to the destination, and the record that lets an
/// interrupted download continue: the URL and the validator (`ETag` or `Last-Modified`) of what was fetched.
struct PartialDownload {
    /// What a later resume must match.
    struct Record: Codable, Equatable {
        var url: String
        var validator: String
    }

    let destination: String
    /// `.<name>.parley-partial` in the destination's folder (same file system, so the final rename is atomic).
    let path: String
    let recordPath: String

    init(destination: URL) throws(ParleyError) {
        let destinationPath = try MultipartForm.path(of: destination)
        let folder = destination.deletingLastPathComponent().path(percentEncoded: false)
        let name = destination.lastPathComponent
        guard !name.isEmpty, name != "/", !destinationPath.hasSuffix("/") else {
            throw ParleyError(
                .invalidRequest,
                "The download destination \(destinationPath) names a folder, not a file. Nothing was sent."
            )
        }
        guard POSIXFile.isDirectory(folder.isEmpty ? "." : folder) else {
            throw ParleyError(
                .invalidRequest,
                "The folder \(folder) of the download destination does not exist; create it first. Nothing was sent."
            )
        }
        self.destination = destinationPath
        let prefix = folder.isEmpty ? "" : (folder.hasSuffix("/") ? folder : folder + "/")
        path = prefix + "." + name + ".parley-partial"
        recordPath = path + ".json"
    }

    /// The bytes already on disk from an earlier attempt at `url`, and the validator to resume with.
    func resumable(url: String) -> (offset: Int64, validator: String)? {
        guard let size = POSIXFile.regularFileSize(path), size > 0,
            let data = FileManager.default.contents(atPath: recordPath),
            let record = try? JSONDecoder().decode(Record.self, from: data), record.url == url
        else { return nil }
        return (size, record.validator)
    }

    /// Saves (or, with `nil`, removes) what a later resume needs.
    func saveRecord(url: String, validator: String?) {
        guard let validator, let data = try? JSONEncoder().encode(Record(url: url, validator: validator)) else {
            POSIXFile.remove(recordPath)
            return
        }
        _ = FileManager.default.createFile(atPath: recordPath, contents: data)
    }

    /// Removes the partial file and its record.
    func discard() {
        POSIXFile.remove(path)
        POSIXFile.remove(recordPath)
    }

    /// Opens the partial file for writing, either from the start (truncated) or appending.
    func open(appending: Bool) throws(ParleyError) -> Int32 {
        let descriptor = POSIXFile.openForWriting(path, appending: appending)
        guard descriptor >= 0 else {
            throw ParleyError(
                .invalidRequest,
                "The download cannot write \(path): \(POSIXFile.describe(-descriptor)). Check the folder's permissions."
            )
        }
        return descriptor
    }

    /// Moves the complete file into place (replacing any file of that name) and drops the record.
    func complete() throws(ParleyError) {
        let failure = POSIXFile.rename(path, to: destination)
        guard failure == 0 else {
            throw ParleyError(
                .invalidRequest,
                "The download is complete in \(path), but it could not be moved to \(destination): \(POSIXFile.describe(failure))."
            )
        }
        POSIXFile.remove(recordPath)
    }

    /// The validator a resume can send as `If-Range`: a strong `ETag`, else `Last-Modified`; `nil` when the
    /// response has neither or the server does not do ranges.
    static func validator(of response: HTTPResponse) -> String? {
        let ranges = response.headerFields[.acceptRanges]?.lowercased()
        guard response.status.code == 206 || ranges == "bytes" else { return nil }
        if let etag = response.headerFields[.eTag], !etag.hasPrefix("W/") { return etag }
        return response.headerFields[.lastModified]
    }

    /// The first byte and the total of `Content-Range: bytes a-b/total` (`total` nil for `*`).
    static func contentRange(of response: HTTPResponse) -> (start: Int64, total: Int64?)? {
        guard let value = response.headerFields[.contentRange], value.hasPrefix("bytes ") else { return nil }
        let spec = value.dropFirst(6)
        let parts = spec.split(separator: "/", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        let total = Int64(parts[1])
        if parts[0] == "*" { return (-1, total) }
        guard let start = parts[0].split(separator: "-").first.flatMap({ Int64($0) }) else { return nil }
        return (start, total)
    }
}
