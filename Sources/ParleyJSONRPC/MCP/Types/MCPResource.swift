public import Parley

/// A resource the server can read, from ``MCPListResources``.
public struct MCPResource: Sendable, Hashable, Decodable {
    /// Its URI, which ``MCPReadResource`` reads.
    public var uri: String
    /// Its name, for programs (and for people when there is no ``title``).
    public var name: String
    /// A name for people, if the server gives one.
    public var title: String?
    /// What it holds.
    public var description: String?
    /// Its media type, if known.
    public var mimeType: String?
    /// Its size in bytes before any encoding, if known.
    public var size: Int?
    /// Icons for a user interface (`{src, mimeType?, sizes?, theme?}`), as sent.
    public var icons: [JSONValue]?
    /// Hints for the client (`audience`, `priority`, `lastModified` …), as sent.
    public var annotations: JSONValue?
    /// The `_meta` member, as sent.
    public var meta: JSONValue?

    private enum CodingKeys: String, CodingKey {
        case uri, name, title, description, mimeType, size, icons, annotations
        case meta = "_meta"
    }
}
