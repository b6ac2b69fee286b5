/// One challenge of a `WWW-Authenticate` (or `Proxy-Authenticate`) field, RFC 9110 section 11.6.1: an auth scheme
/// with either a token68 or a list of parameters, such as RFC 6750's
/// `Bearer error="insufficient_scope", scope="files:read", resource_metadata="https://…"`.
///
/// The field is read the way every byte a server sends is read: leniently but never past its grammar. A challenge or
/// parameter that breaks it (an unterminated quoted string, a name that is not a token, a value with a control byte)
/// is dropped, not repaired, and what was well formed around it is kept; nothing here fails. The scheme and the
/// parameter names compare case-insensitively (they are kept lowercased); a parameter named twice keeps its first
/// value, as a value a server sent twice cannot be trusted either way.
package struct AuthenticationChallenge: Sendable, Hashable {
    /// The auth scheme, lowercased: `bearer`, `basic`, `dpop`, ….
    package let scheme: String
    /// The challenge's parameters by lowercased name, their values unquoted.
    package let parameters: [String: String]
    /// The challenge's token68, for a scheme that sends one instead of parameters.
    package let token68: String?

    package init(scheme: String, parameters: [String: String] = [:], token68: String? = nil) {
        self.scheme = scheme.lowercased()
        self.parameters = parameters
        self.token68 = token68
    }

    /// RFC 6750 section 3's `error` (`invalid_token`, `insufficient_scope`, `invalid_request`), when sent.
    package var error: String? { parameters["error"] }

    /// RFC 6750 section 3's `scope`: the scopes the resource asks for, split at spaces; empty when not sent.
    package var scopes: [String] {
        guard let scope = parameters["scope"] else { return [] }
        return scope.split(separator: " ").map(String.init)
    }

    /// RFC 9728 section 5.1's `resource_metadata`: the URL of the protected resource's metadata, when sent.
    package var resourceMetadata: String? { parameters["resource_metadata"] }

    /// The challenges of `values` (each line of the field, as `HTTPFields[values:]` gives them), in order.
    package static func parse(_ values: [String]) -> [AuthenticationChallenge] {
        var challenges: [AuthenticationChallenge] = []
        for value in values where challenges.count < maxChallenges {
            var reader = Reader(Array(value.utf8))
            reader.read(into: &challenges)
        }
        return challenges
    }

    /// The most challenges kept from one response, and parameters from one challenge: a field within the transport's
    /// header limit cannot make more than a few kilobytes of them.
    static let maxChallenges = 32
    static let maxParameters = 32
}

extension AuthenticationChallenge {
    /// Reads `#challenge` (RFC 9110 section 11.6.1), where commas separate both the challenges and the parameters of
    /// one: a token followed by `=` (and not only by `=`s up to the next comma, which ends a token68) is a parameter of
    /// the challenge in progress; any other token starts the next challenge.
    fileprivate struct Reader {
        private let bytes: [UInt8]
        private var index = 0

        init(_ bytes: [UInt8]) {
            self.bytes = bytes
        }

        mutating func read(into challenges: inout [AuthenticationChallenge]) {
            var scheme: String?
            var parameters: [String: String] = [:]
            var token68: String?
            // Set while the challenge in progress has broken its grammar: its later parameters are skipped too.
            var broken = false
            func finish() {
                if let scheme, !broken, challenges.count < AuthenticationChallenge.maxChallenges {
                    challenges.append(AuthenticationChallenge(scheme: scheme, parameters: parameters, token68: token68))
                }
                scheme = nil
                parameters = [:]
                token68 = nil
                broken = false
            }
            while true {
                skipWhitespaceAndCommas()
                guard index < bytes.count else { break }
                guard let name = token() else {
                    // Not a token where one must be: the rest of this element is skipped, the challenge dropped.
                    broken = true
                    skipElement()
                    continue
                }
                skipWhitespace()
                if peek == UInt8(ascii: "="), scheme != nil, !isToken68Tail(name) {
                    index += 1
                    skipWhitespace()
                    let value = peek == UInt8(ascii: "\"") ? quotedString() : token()
                    guard let value else {
                        broken = true
                        skipElement()
                        continue
                    }
                    let key = name.lowercased()
                    if parameters[key] == nil, parameters.count < AuthenticationChallenge.maxParameters {
                        parameters[key] = value
                    }
                    continue
                }
                // A new challenge: `scheme`, then a token68 or parameters.
                finish()
                scheme = name
                guard token68Follows() else { continue }
                token68 = readToken68()
            }
            finish()
        }

        private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        private mutating func skipWhitespace() {
            while let byte = peek, byte.isHTTPWhitespace { index += 1 }
        }

        private mutating func skipWhitespaceAndCommas() {
            while let byte = peek, byte.isHTTPWhitespace || byte == UInt8(ascii: ",") { index += 1 }
        }

        /// Skips to the next comma outside a quoted string.
        private mutating func skipElement() {
            var quoted = false
            while let byte = peek {
                if quoted, byte == UInt8(ascii: "\\") {
                    index += 2
                    continue
                }
                if byte == UInt8(ascii: "\"") { quoted.toggle() }
                if byte == UInt8(ascii: ","), !quoted { return }
                index += 1
            }
        }

        /// `1*tchar`, or `nil` (nothing read) when the next byte is not one.
        private mutating func token() -> String? {
            let start = index
            while let byte = peek, byte.isHTTPTokenCharacter { index += 1 }
            return index > start ? String(decoding: bytes[start..<index], as: UTF8.self) : nil
        }

        /// Whether `name`, just read, is the start of a token68 whose `=` padding follows (`abc==` up to a comma or
        /// the end), rather than a parameter's name.
        private func isToken68Tail(_ name: String) -> Bool {
            var position = index
            while position < bytes.count, bytes[position] == UInt8(ascii: "=") { position += 1 }
            while position < bytes.count, bytes[position].isHTTPWhitespace { position += 1 }
            return position == bytes.count || bytes[position] == UInt8(ascii: ",")
        }

        /// Whether a token68 follows the scheme just read: token68 characters, optional `=` padding, then a comma or
        /// the end (a token followed by `=` and a value is a parameter instead).
        private func token68Follows() -> Bool {
            var position = index
            let start = position
            while position < bytes.count, Self.isToken68Character(bytes[position]) { position += 1 }
            guard position > start else { return false }
            while position < bytes.count, bytes[position] == UInt8(ascii: "=") { position += 1 }
            while position < bytes.count, bytes[position].isHTTPWhitespace { position += 1 }
            return position == bytes.count || bytes[position] == UInt8(ascii: ",")
        }

        private mutating func readToken68() -> String {
            let start = index
            while let byte = peek, Self.isToken68Character(byte) { index += 1 }
            while peek == UInt8(ascii: "=") { index += 1 }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        /// `DQUOTE *( qdtext / quoted-pair ) DQUOTE`, unquoted; `nil` when it is not terminated or holds a control
        /// byte (other than a tab), which no value may bring into Parley's errors or logs.
        private mutating func quotedString() -> String? {
            index += 1  // the opening quote
            var value: [UInt8] = []
            while let byte = peek {
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return String(decoding: value, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard let escaped = peek, !Self.isControl(escaped) else { return nil }
                    index += 1
                    value.append(escaped)
                default:
                    guard !Self.isControl(byte) else { return nil }
                    value.append(byte)
                }
            }
            return nil
        }

        /// RFC 9110 section 11.2's token68 characters, but its `=` padding.
        private static func isToken68Character(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            default:
                return "-._~+/".utf8.contains(byte)
            }
        }

        /// A control byte but the tab (and DEL).
        private static func isControl(_ byte: UInt8) -> Bool {
            (byte < 0x20 && byte != UInt8(ascii: "\t")) || byte == 0x7F
        }
    }
}
