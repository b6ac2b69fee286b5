import Parley

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The HTTP header fields of a stateless-era (2026-07-28) request: `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`
/// for the methods that name something, and the `Mcp-Param-*` fields a tool's input schema asks for with
/// `x-mcp-header`. Values that are not plain visible ASCII without edge whitespace are sent as `=?base64?…?=`, as the
/// specification's transport page says.
enum MCPRoutingHeaders {
    /// The parameter whose value `Mcp-Name` carries, by method.
    static let namedParameter: [String: String] = ["tools/call": "name", "prompts/get": "name", "resources/read": "uri"]

    /// The header fields of a request of `method` with `params`; `parameterHeaders` maps a tool's argument paths to
    /// their `x-mcp-header` names (a `tools/call` only).
    static func fields(
        version: String,
        method: String,
        params: JSONValue,
        parameterHeaders: [[String]: String] = [:]
    ) -> Headers {
        var fields: Headers = ["MCP-Protocol-Version": version, "Mcp-Method": encoded(method)]
        if let key = namedParameter[method], let name = params[key]?.stringValue {
            fields.set("Mcp-Name", encoded(name))
        }
        guard method == "tools/call", !parameterHeaders.isEmpty, let arguments = params["arguments"] else { return fields }
        for (path, name) in parameterHeaders.sorted(by: { $0.value < $1.value }) {
            guard let value = value(at: path, in: arguments).flatMap(rendered) else { continue }
            fields.set("Mcp-Param-\(name)", encoded(value))
        }
        return fields
    }

    /// `value` as a header value: itself when it is visible ASCII or spaces, without edge whitespace, and does not
    /// look like the base64 form; else `=?base64?…?=` of its UTF-8.
    static func encoded(_ value: String) -> String {
        let bytes = Array(value.utf8)
        let plain =
            bytes.allSatisfy { (0x20...0x7E).contains($0) } && bytes.first != 0x20 && bytes.last != 0x20
            && !(value.hasPrefix("=?base64?") && value.hasSuffix("?="))
        return plain ? value : "=?base64?\(Data(bytes).base64EncodedString())?="
    }

    /// The argument at `path` (object members, from the root of the arguments).
    private static func value(at path: [String], in arguments: JSONValue) -> JSONValue? {
        var node = arguments
        for key in path {
            guard let next = node[key] else { return nil }
            node = next
        }
        return node
    }

    /// A scalar as the header carries it: booleans `true`/`false`, numbers and strings as written; nothing else.
    private static func rendered(_ value: JSONValue) -> String? {
        switch value {
        case .bool(let flag): flag ? "true" : "false"
        case .string(let text): text
        case .int(let number): String(number)
        case .double(let number): String(number)
        default: nil
        }
    }

    /// The `x-mcp-header` names of a tool's input schema by argument path, or why the schema's annotations are
    /// invalid (then the tool is not offered: a call could not carry its headers). An annotation is valid on a
    /// property reached from the root through `properties` only, of type string, integer or boolean, named by an
    /// RFC 9110 token, unique without regard to case.
    static func parameterHeaders(of schema: JSONValue?) -> Result<[[String]: String], Invalid> {
        guard let schema else { return .success([:]) }
        var found: [[String]: String] = [:]
        var seen: [String: [String]] = [:]
        // Every schema position, with its path of `properties` keys (`nil` once another keyword was crossed).
        var stack: [([String]?, JSONValue)] = [([], schema)]
        var visited = 0
        while let (path, node) = stack.popLast() {
            visited += 1
            guard visited <= 100_000 else { return .failure(Invalid(reason: "the input schema is too large to check")) }
            guard case .object(let members) = node else { continue }
            if let annotation = members["x-mcp-header"] {
                guard let path, !path.isEmpty else {
                    return .failure(Invalid(reason: "x-mcp-header is on a schema position not reached through properties alone"))
                }
                let at = PrintableText.escaping(path.joined(separator: "."))
                guard case .string(let name) = annotation, !name.isEmpty, name.utf8.allSatisfy(\.isHTTPTokenCharacter) else {
                    return .failure(Invalid(reason: "property \(at): x-mcp-header is not an RFC 9110 token"))
                }
                guard let type = members["type"]?.stringValue, ["string", "integer", "boolean"].contains(type) else {
                    return .failure(
                        Invalid(reason: "property \(at): x-mcp-header is only allowed on string, integer or boolean properties")
                    )
                }
                if let other = seen[name.lowercased()] {
                    return .failure(
                        Invalid(
                            reason:
                                "property \(at): x-mcp-header \(name) repeats that of \(PrintableText.escaping(other.joined(separator: ".")))"
                        )
                    )
                }
                seen[name.lowercased()] = path
                found[path] = name
            }
            for (keyword, value) in members {
                switch keyword {
                case "properties":
                    guard case .object(let properties) = value else { continue }
                    for (name, sub) in properties { stack.append((path.map { $0 + [name] }, sub)) }
                case "items", "contains", "unevaluatedItems", "additionalProperties", "propertyNames", "unevaluatedProperties",
                    "not", "if", "then", "else", "contentSchema":
                    stack.append((nil, value))
                case "allOf", "anyOf", "oneOf", "prefixItems":
                    guard case .array(let subs) = value else { continue }
                    stack.append(contentsOf: subs.map { (nil, $0) })
                case "patternProperties", "dependentSchemas", "$defs", "definitions":
                    guard case .object(let subs) = value else { continue }
                    stack.append(contentsOf: subs.values.map { (nil, $0) })
                default: continue
                }
            }
        }
        return .success(found)
    }

    /// Why a tool's `x-mcp-header` annotations are invalid.
    struct Invalid: Error {
        let reason: String
    }
}
