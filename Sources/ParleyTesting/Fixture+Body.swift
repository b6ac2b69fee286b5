#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

extension Fixture {
    /// One header field, written as a `[name, value]` pair.
    public struct Field: Sendable, Hashable, Codable {
        /// The name as it was sent or received (its case kept).
        public var name: String
        /// The value.
        public var value: String

        /// A field.
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }

        /// Decodes `[name, value]`.
        public init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            name = try container.decode(String.self)
            value = try container.decode(String.self)
            guard container.isAtEnd else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "a header field is [name, value]")
            }
        }

        /// Encodes `[name, value]`.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.unkeyedContainer()
            try container.encode(name)
            try container.encode(value)
        }
    }

    /// Body bytes, written as UTF-8 text when they are valid UTF-8 and as base64 otherwise.
    public struct Body: Sendable, Hashable, Codable {
        /// The bytes.
        public var bytes: Data
        /// Whether these are all the bytes of the body. `false` when the caller stopped reading before the end
        /// while recording: replay then answers with these bytes and fails if the reader asks for more.
        public var isComplete: Bool

        /// A body of `bytes`.
        public init(_ bytes: Data, isComplete: Bool = true) {
            self.bytes = bytes
            self.isComplete = isComplete
        }

        /// The bytes as text, when they are valid UTF-8.
        public var text: String? { String(validating: bytes, as: UTF8.self) }

        private enum CodingKeys: String, CodingKey {
            case text, base64, incomplete
        }

        /// Decodes `{"text": …}` or `{"base64": …}`, with `"incomplete": true` when the body was not read to its end.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            if let text = try container.decodeIfPresent(String.self, forKey: .text) {
                bytes = Data(text.utf8)
            } else {
                let base64 = try container.decode(String.self, forKey: .base64)
                guard let data = Data(base64Encoded: base64) else {
                    throw DecodingError.dataCorruptedError(forKey: .base64, in: container, debugDescription: "not base64")
                }
                bytes = data
            }
            isComplete = !(try container.decodeIfPresent(Bool.self, forKey: .incomplete) ?? false)
        }

        /// Encodes `{"text": …}` for UTF-8 bytes, `{"base64": …}` otherwise.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            if let text {
                try container.encode(text, forKey: .text)
            } else {
                try container.encode(bytes.base64EncodedString(), forKey: .base64)
            }
            if !isComplete { try container.encode(true, forKey: .incomplete) }
        }
    }
}
