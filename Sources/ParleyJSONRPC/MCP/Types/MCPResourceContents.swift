public import Parley

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// The contents of one resource (or part of one), as text or as base64-encoded bytes.
public struct MCPResourceContents: Sendable, Hashable, Decodable {
    /// The URI of the resource.
    public var uri: String
    /// Its media type, if known.
    public var mimeType: String?
    /// The text, for a text resource.
    public var text: String?
    /// The bytes in base64, for a binary resource.
    public var blob: String?
    /// The `_meta` member, as sent.
    public var meta: JSONValue?

    /// The bytes: ``blob`` decoded from base64 (`nil` when it is not valid base64), or else the UTF-8 of ``text``;
    /// `nil` when there is neither.
    public var data: Data? {
        if let blob { return Data(base64Encoded: blob) }
        return text.map { Data($0.utf8) }
    }

    private enum CodingKeys: String, CodingKey {
        case uri, mimeType, text, blob
        case meta = "_meta"
    }
}
