public import HTTPTypes

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A finished download: where the file is and what the server said.
public struct DownloadResult: Sendable {
    /// The file, complete, under the name you asked for.
    public let location: URL
    /// The head of the response that delivered the last bytes (`206 Partial Content` after a resume).
    public let response: HTTPResponse
    /// The file's size.
    public let bytes: Int64
    /// How many bytes came from an earlier, interrupted download (0 for a download from the start).
    public let resumedFrom: Int64
}
