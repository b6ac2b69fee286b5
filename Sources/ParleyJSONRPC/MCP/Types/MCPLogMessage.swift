public import Parley

/// A log message from the server: the params of a `notifications/message` notification.
public struct MCPLogMessage: Sendable, Hashable, Decodable {
    /// The severity: `"debug"`, `"info"`, `"notice"`, `"warning"`, `"error"`, `"critical"`, `"alert"` or
    /// `"emergency"` (another string is kept as sent).
    public var level: String
    /// The name of the logger, if the server gives one.
    public var logger: String?
    /// What is logged, a string or any JSON value, as sent; `null` when missing.
    public var data: JSONValue

    private enum CodingKeys: String, CodingKey {
        case level, logger, data
    }

    /// Decodes a message; a missing `data` is `null`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        level = try container.decode(String.self, forKey: .level)
        logger = try container.decodeIfPresent(String.self, forKey: .logger)
        data = try container.decodeIfPresent(JSONValue.self, forKey: .data) ?? .null
    }
}
