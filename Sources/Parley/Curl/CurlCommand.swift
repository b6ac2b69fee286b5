public import HTTPTypes

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A request as a `curl` command line that sends the same request: method, URL, header fields and body, quoted for a
/// POSIX shell.
///
/// ```swift
/// var request = HTTPRequest(method: .post, scheme: "https", authority: "api.example.com", path: "/users")
/// request.headerFields[.contentType] = "application/json"
/// let command = CurlCommand(request, body: .data(Data(#"{"name":"Ada"}"#.utf8)))
/// print(command)   // curl 'https://api.example.com/users' -H 'Content-Type: application/json' --data-binary '{"name":"Ada"}'
/// ```
///
/// Secrets never appear: the values of the header fields of ``SensitiveFields`` (by default `Authorization`,
/// `Proxy-Authorization`, `Cookie`, `X-API-Key`, `X-Auth-Token`, …: ``alwaysSecret``), and a URL's `user:password@`,
/// become `<redacted>` (``Secrets/redacted``), or a shell variable named after the field, such as `"$AUTHORIZATION"`
/// (``Secrets/variables``), so that the printed command runs once the variable is set; the values of its query items
/// (`api_key`, `token`, `signature`, …) become `<redacted>`. When Parley asks for compressed responses (`Accept-Encoding` with `gzip` or `deflate`), the
/// command says `--compressed` instead, so that curl inflates what it receives as Parley would.
public struct CurlCommand: Sendable, CustomStringConvertible {
    /// What the body of the command is.
    public enum Body: Sendable {
        /// No body.
        case none
        /// These bytes (`--data-binary`, quoted; bytes that are not UTF-8 text are written with `$'…'` escapes).
        case data(Data)
        /// The file at this path (`--data-binary @FILE`): a large upload is not copied into the command.
        case file(String)
    }

    /// How secret values are written.
    public enum Secrets: Sendable {
        /// As `<redacted>`: the command shows the request's shape, and does not run as is.
        case redacted
        /// As a shell variable named after the field (`Authorization` → `$AUTHORIZATION`, `X-API-Key` →
        /// `$X_API_KEY`), so that the command runs once the variable holds the value.
        case variables
    }

    /// The command line.
    public let description: String

    /// The fields whose values are secrets whatever `secretFields` says: ``SensitiveFields/defaultHeaderFields``
    /// (those a redirect never carries to another origin, `Set-Cookie`, and the usual token and key fields).
    public static let alwaysSecret: Set<HTTPField.Name> = SensitiveFields.defaultHeaderFields

    /// The command for `request` (relative to `baseURL` when it has no scheme and authority of its own).
    ///
    /// - Parameters:
    ///   - request: The request, as a transport is handed it.
    ///   - baseURL: Where a request without scheme and authority goes.
    ///   - body: The body to send with it.
    ///   - secrets: How secret values are written.
    ///   - secretFields: More fields whose values are secrets (an API key's field), beside ``alwaysSecret``.
    ///   - secretQueryItems: Query items whose values are secrets (an API key sent as `?api_key=`), beside
    ///     ``SensitiveFields/defaultQueryItems``: written `<redacted>` in the URL whatever `secrets` says.
    public init(
        _ request: HTTPRequest,
        baseURL: URL? = nil,
        body: Body = .none,
        secrets: Secrets = .redacted,
        secretFields: Set<HTTPField.Name> = [],
        secretQueryItems: Set<String> = []
    ) {
        self.init(
            request,
            baseURL: baseURL,
            body: body,
            secrets: secrets,
            sensitiveFields: SensitiveFields.default.union(
                SensitiveFields(headerFields: secretFields, queryItems: secretQueryItems)
            )
        )
    }

    /// The command for `request` (relative to `baseURL` when it has no scheme and authority of its own), the values
    /// of `sensitiveFields` (such as a client's ``Client/Configuration/sensitiveFields``, or
    /// ``SensitiveFields/current`` in a middleware) redacted, and those of ``alwaysSecret``.
    public init(
        _ request: HTTPRequest,
        baseURL: URL? = nil,
        body: Body = .none,
        secrets: Secrets = .redacted,
        sensitiveFields: SensitiveFields
    ) {
        let url = RequestTarget(request, baseURL: baseURL)
        self.init(
            request,
            url: url.redacted(queryItems: sensitiveFields.queryItems, placeholder: Redaction.placeholder),
            body: body,
            secrets: secrets,
            secretFields: sensitiveFields.headerFields
        )
    }

    /// The command for `request` sent to `url` (already redacted as it must be).
    init(_ request: HTTPRequest, url: String, body: Body = .none, secrets: Secrets = .redacted, secretFields: Set<HTTPField.Name>)
    {
        var words = ["curl"]
        let hasBody: Bool
        switch body {
        case .none: hasBody = false
        case .data, .file: hasBody = true
        }
        switch request.method {
        case .get where !hasBody: break
        case .head: words.append("--head")
        case .post where hasBody: break
        default: words += ["-X", Self.quote(request.method.rawValue)]
        }
        var url = url
        // http+unix://%2Fpath%2Fto.sock/x: curl's --unix-socket with the path, and the URL on localhost.
        let target = RequestTarget(url)
        if let socket = target.unixSocketPath {
            words += ["--unix-socket", Self.quote(socket)]
            url = target.scheme.dropLast("+unix".count) + "://localhost" + target.afterAuthority
        }
        // -g: curl would read [ ] { } in a URL as its globbing patterns (filter[name]=x).
        if url.contains(where: { "[]{}".contains($0) }) { words.append("-g") }
        words.append(Self.quote(url))
        let secret = Self.alwaysSecret.union(secretFields)
        var compressed = false
        for field in request.headerFields {
            switch field.name {
            case .contentLength, .transferEncoding, .connection:
                continue  // curl writes these itself, from what it sends
            case .acceptEncoding:
                let codings = field.value.lowercased()
                if codings.contains("gzip") || codings.contains("deflate") {
                    compressed = true
                    continue
                }
            default:
                break
            }
            let name = field.name.canonicalName
            if secret.contains(field.name) {
                switch secrets {
                case .redacted: words += ["-H", Self.quote("\(name): <redacted>")]
                // The name single-quoted (a field name may hold $ or `), only the variable in double quotes.
                case .variables: words += ["-H", Self.quote("\(name): ") + "\"$\(Self.variable(for: field.name))\""]
                }
            } else if field.value.isEmpty {
                words += ["-H", Self.quote("\(name);")]  // curl's spelling of a field with an empty value
            } else {
                words += ["-H", Self.quote("\(name): \(field.value)")]
            }
        }
        if compressed { words.append("--compressed") }
        switch body {
        case .none: break
        // --data-raw for a body starting with @, which --data-binary would take for a file to read and send.
        case .data(let data): words += [data.first == UInt8(ascii: "@") ? "--data-raw" : "--data-binary", Self.quote(data)]
        case .file(let path): words += ["--data-binary", Self.quote("@" + path)]
        }
        description = words.joined(separator: " ")
    }

    /// The shell variable that stands for the value of `name`: upper case, `-` as `_`.
    public static func variable(for name: HTTPField.Name) -> String {
        String(name.canonicalName.uppercased().map { $0.isLetter || $0.isNumber ? $0 : "_" })
    }

    /// `text` in single quotes, each `'` written `'\''`.
    static func quote(_ text: String) -> String {
        "'" + text.replacing("'", with: #"'\''"#) + "'"
    }

    /// `data` quoted: single quotes for UTF-8 text without control characters (line breaks and tabs allowed),
    /// otherwise bash's `$'…'` with `\xHH` escapes. (bash ends a `$'…'` string at `\x00`: a body holding NUL bytes is
    /// not reproduced whole; write it to a file and use ``Body/file(_:)``.)
    static func quote(_ data: Data) -> String {
        let text = String(decoding: data, as: UTF8.self)
        let isText = text.utf8.elementsEqual(data) && !data.contains { ($0 < 0x20 && $0 != 0x0A && $0 != 0x09) || $0 == 0x7F }
        if isText { return quote(text) }
        var escaped = "$'"
        for byte in data {
            switch byte {
            case UInt8(ascii: "'"), UInt8(ascii: "\\"): escaped += "\\" + String(UnicodeScalar(byte))
            case 0x20...0x7E: escaped.append(Character(UnicodeScalar(byte)))
            default: escaped += "\\x" + (byte < 16 ? "0" : "") + String(byte, radix: 16)
            }
        }
        return escaped + "'"
    }
}

extension HTTPField.Name {
    /// The name as it is usually written: `content-type` → `Content-Type` (HTTP/1.1 names are case-insensitive; the
    /// request keeps the spelling it was given, shown as is when it has capitals).
    fileprivate var canonicalName: String {
        guard rawName == rawName.lowercased() else { return rawName }
        return rawName.split(separator: "-", omittingEmptySubsequences: false)
            .map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: "-")
    }
}
