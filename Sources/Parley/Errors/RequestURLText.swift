/// Takes secrets out of URL text before it goes into an error message or a ``ParleyError/RequestSummary``.
enum RequestURLText {
    /// `url` with the user info of its authority (`user:password@`) replaced by `<redacted>:<redacted>@`; other
    /// text unchanged.
    static func redactingUserInfo(_ url: String) -> String {
        guard let userInfo = userInfoRange(url) else { return url }
        let placeholder = Redaction.placeholder
        let replacement = url[userInfo].contains(":") ? placeholder + ":" + placeholder : placeholder
        return String(url[..<userInfo.lowerBound]) + replacement + String(url[userInfo.upperBound...])
    }

    /// The user info's parts (user name, password), raw and percent-decoded: the secrets to scrub out of text
    /// that may quote the URL.
    static func userInfoSecrets(_ url: String) -> [String] {
        guard let userInfo = userInfoRange(url) else { return [] }
        return url[userInfo].split(separator: ":").flatMap { part in
            [String(part), PercentEncoding.decode(part) ?? String(part)]
        }
    }

    /// Where the user info is in `url` (`scheme://USERINFO@host…`), if it has one.
    private static func userInfoRange(_ url: String) -> Range<String.Index>? {
        guard let separator = url.firstRange(of: "://") else { return nil }
        let start = separator.upperBound
        let end = url[start...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? url.endIndex
        guard let at = url[start..<end].lastIndex(of: "@") else { return nil }
        return start..<at
    }
}
