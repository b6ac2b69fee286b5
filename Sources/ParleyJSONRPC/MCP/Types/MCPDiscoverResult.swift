public import Parley

/// The server's answer to ``MCPDiscover`` (protocol 2026-07-28): the versions it speaks and what it can do.
public struct MCPDiscoverResult: Sendable, Hashable, Decodable {
    /// The protocol versions the server supports; the client picks one for its requests. Empty when missing.
    public var supportedVersions: [String]
    /// What the server can do (`tools`, `resources`, `prompts` …), as sent; `{}` when missing.
    public var capabilities: JSONValue
    /// The server's name and version, from `_meta["io.modelcontextprotocol/serverInfo"]`; `nil` when absent or
    /// without a string `name` and `version`. Self-reported, for display and logs only.
    public var serverInfo: MCPImplementation?
    /// How to use the server, for a model's context, if the server says.
    public var instructions: String?
    /// How long the client may cache this answer, in milliseconds, if the server says.
    public var ttlMs: Int?
    /// Who may share a cached copy: `"public"` or `"private"`, if the server says.
    public var cacheScope: String?
    /// The `_meta` member, as sent.
    public var meta: JSONValue?

    /// The `_meta` key of ``serverInfo``.
    static let serverInfoKey = "io.modelcontextprotocol/serverInfo"

    private enum CodingKeys: String, CodingKey {
        case supportedVersions, capabilities, instructions, ttlMs, cacheScope
        case meta = "_meta"
    }

    /// Decodes an answer; missing `supportedVersions` are none and missing `capabilities` `{}`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        supportedVersions = try container.decodeIfPresent([String].self, forKey: .supportedVersions) ?? []
        capabilities = try container.decodeIfPresent(JSONValue.self, forKey: .capabilities) ?? [:]
        instructions = try container.decodeIfPresent(String.self, forKey: .instructions)
        ttlMs = try container.decodeIfPresent(Int.self, forKey: .ttlMs)
        cacheScope = try container.decodeIfPresent(String.self, forKey: .cacheScope)
        meta = try container.decodeIfPresent(JSONValue.self, forKey: .meta)
        if let info = meta?[Self.serverInfoKey], let name = info["name"]?.stringValue,
            let version = info["version"]?.stringValue
        {
            serverInfo = MCPImplementation(name: name, version: version)
        } else {
            serverInfo = nil
        }
    }
}
