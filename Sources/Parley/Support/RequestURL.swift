import HTTPTypes

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A request's absolute URL taken apart for logs and spans: scheme, host and port, and the URL with its
/// secrets (the user info, and the values of chosen query items) replaced by a placeholder.
struct RequestURL: Sendable {
    /// `http` or `https` (lowercased), or empty when the URL has none.
    let scheme: String
    /// The host, without brackets for an IPv6 address.
    let host: String
    /// The port: the explicit one, else 80 for `http` and 443 for `https`.
    let port: Int?
    /// The URL as sent.
    let full: String
    private let userInfo: Range<String.Index>?
    private let query: Range<String.Index>?

    /// The URL of `request`, relative to `baseURL` unless the request carries its own scheme and authority.
    init(_ request: HTTPRequest, baseURL: URL?) {
        let full = request.absoluteURLString(baseURL: baseURL)
        self.full = full
        let colon = full.firstIndex(of: ":").flatMap { full[$0...].hasPrefix("://") ? $0 : nil }
        scheme = colon.map { full[..<$0].lowercased() } ?? ""
        let authorityStart = colon.map { full.index($0, offsetBy: 3) } ?? full.startIndex
        let authorityEnd = full[authorityStart...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? full.endIndex
        var hostPort = full[authorityStart..<authorityEnd]
        if let at = hostPort.lastIndex(of: "@") {
            userInfo = authorityStart..<at
            hostPort = hostPort[hostPort.index(after: at)...]
        } else {
            userInfo = nil
        }
        var portText: Substring?
        if hostPort.hasPrefix("["), let close = hostPort.firstIndex(of: "]") {
            host = String(hostPort[hostPort.index(after: hostPort.startIndex)..<close])
            let rest = hostPort[hostPort.index(after: close)...]
            portText = rest.hasPrefix(":") ? rest.dropFirst() : nil
        } else if let colon = hostPort.lastIndex(of: ":") {
            host = String(hostPort[..<colon])
            portText = hostPort[hostPort.index(after: colon)...]
        } else {
            host = String(hostPort)
        }
        port = portText.flatMap { Int($0) } ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : nil)
        if let mark = full[authorityEnd...].firstIndex(of: "?") {
            query = full.index(after: mark)..<(full[mark...].firstIndex(of: "#") ?? full.endIndex)
        } else {
            query = nil
        }
    }

    /// The URL with its user info, and the values of query items named in `queryItems` (compared without regard
    /// to case, after percent-decoding), replaced by `placeholder`.
    func redacted(queryItems: Set<String>, placeholder: String) -> String {
        guard userInfo != nil || (query != nil && !queryItems.isEmpty) else { return full }
        var text = ""
        var position = full.startIndex
        if let userInfo {
            text += full[position..<userInfo.lowerBound]
            text += full[userInfo].contains(":") ? placeholder + ":" + placeholder : placeholder
            position = userInfo.upperBound
        }
        if let query, !queryItems.isEmpty {
            text += full[position..<query.lowerBound]
            text += full[query].split(separator: "&", omittingEmptySubsequences: false).map { item in
                guard let equals = item.firstIndex(of: "="), queryItems.contains(Self.name(item[..<equals])) else {
                    return String(item)
                }
                return String(item[...equals]) + placeholder
            }.joined(separator: "&")
            position = query.upperBound
        }
        return text + full[position...]
    }

    /// The raw and the percent-decoded values of the user info and of the query items named in `queryItems`:
    /// the secrets to scrub out of an error's text.
    func secrets(queryItems: Set<String>) -> [String] {
        var secrets: [String] = []
        if let userInfo {
            for part in full[userInfo].split(separator: ":") {
                secrets += [String(part), PercentEncoding.decode(part) ?? ""]
            }
        }
        guard let query, !queryItems.isEmpty else { return secrets }
        for item in full[query].split(separator: "&") {
            guard let equals = item.firstIndex(of: "="), queryItems.contains(Self.name(item[..<equals])) else { continue }
            let value = String(item[item.index(after: equals)...])
            secrets += [value, PercentEncoding.decode(value[...], plusAsSpace: true) ?? ""]
        }
        return secrets
    }

    /// A query item's name, percent-decoded and lowercased, for comparing with a redaction list.
    static func name(_ raw: Substring) -> String {
        (PercentEncoding.decode(raw, plusAsSpace: true) ?? String(raw)).lowercased()
    }
}
