import HTTPTypes
import Parley

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension FixtureRedaction {
    /// `fields` as fixture fields, the values of redacted names replaced (the scheme of credentials kept).
    func redacted(_ fields: HTTPFields) -> [Fixture.Field] {
        let names = Set(headerNames.map { $0.lowercased() })
        return fields.map { field in
            let name = field.name.canonicalName
            guard names.contains(name) else { return Fixture.Field(field.name.rawName, field.value) }
            var value = Self.placeholder
            if name == "authorization" || name == "proxy-authorization",
                let space = field.value.firstIndex(of: " ")
            {
                value = String(field.value[..<space]) + " " + Self.placeholder
            }
            return Fixture.Field(field.name.rawName, value)
        }
    }

    /// `url` with the values of redacted query items replaced; everything else byte for byte.
    func redacted(url: String) -> String {
        guard let mark = url.firstIndex(of: "?") else { return url }
        let end = url[mark...].firstIndex(of: "#") ?? url.endIndex
        let query = Self.redacted(pairs: url[url.index(after: mark)..<end], names: Set(queryItemNames.map { $0.lowercased() }))
        return String(url[...mark]) + query + String(url[end...])
    }

    /// `body` with the values of redacted members (JSON) or fields (form) replaced, judged by `contentType`.
    func redacted(body: Data, contentType: String?) -> Data {
        guard let contentType = contentType?.lowercased(), !body.isEmpty else { return body }
        if contentType.contains("json") {
            let keys = Set(bodyKeys.map { $0.lowercased() })
            guard !keys.isEmpty else { return body }
            return Data(JSONMemberRedactor.redact([UInt8](body), keys: keys))
        }
        if contentType.hasPrefix("application/x-www-form-urlencoded"), let text = String(validating: body, as: UTF8.self) {
            let names = Set((queryItemNames + bodyKeys).map { $0.lowercased() })
            return Data(Self.redacted(pairs: Substring(text), names: names).utf8)
        }
        return body
    }

    /// `name=value&…` with the values of `names` replaced by the placeholder.
    private static func redacted(pairs: Substring, names: Set<String>) -> String {
        guard !names.isEmpty else { return String(pairs) }
        let parts = pairs.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
            let rawName = pair[..<equals]
            let name = Path.decode(segment: rawName.replacing("+", with: " ")) ?? String(rawName)
            return names.contains(name.lowercased()) ? String(rawName) + "=" + placeholder : String(pair)
        }
        return parts.joined(separator: "&")
    }
}
