extension DecodingError {
    /// The coding path as `items[3].name`, and what went wrong there in words.
    package var explanation: (path: String, message: String) {
        switch self {
        case .keyNotFound(let key, let context):
            let path = Self.render(context.codingPath + [key])
            return (path, "the required key \(path) is missing")
        case .typeMismatch(let type, let context):
            let path = Self.render(context.codingPath)
            return (path, "expected \(type) at \(path.isEmpty ? "the top level" : path), but found another type")
        case .valueNotFound(let type, let context):
            let path = Self.render(context.codingPath)
            return (path, "expected \(type) at \(path.isEmpty ? "the top level" : path), but found null")
        case .dataCorrupted(let context):
            let path = Self.render(context.codingPath)
            if let nesting {
                return (path, Self.tooDeep(limit: nesting.limit, byJSONValue: nesting.byJSONValue, path: path))
            }
            var detail = context.underlyingError.map { String(describing: $0) } ?? context.debugDescription
            // The detail is a sentence of its own; the caller ends the message with its own period.
            while detail.last == "." { detail.removeLast() }
            return (path, "the body is not valid JSON or holds an invalid value\(path.isEmpty ? "" : " at " + path): \(detail)")
        @unknown default:
            return ("", String(describing: self))
        }
    }

    /// ``explanation``, told by `body` (the JSON that failed to decode) whether a document `JSONDecoder` calls
    /// "not valid JSON" is in fact nested deeper than its limit.
    package func explanation(body: some Collection<UInt8>) -> (path: String, message: String) {
        if isNestedTooDeep(body: body) {
            let path = Self.render(codingPathOfContext)
            return (
                path,
                Self.tooDeep(
                    limit: nesting?.limit ?? Self.foundationNestingLimit,
                    byJSONValue: nesting?.byJSONValue ?? false,
                    path: path
                )
            )
        }
        return explanation
    }

    /// Whether this error is about JSON nested too deeply: it says so, or it calls `body` not valid JSON and `body`
    /// nests deeper than `JSONDecoder` allows.
    package func isNestedTooDeep(body: some Collection<UInt8>) -> Bool {
        guard case .dataCorrupted = self else { return false }
        return nesting != nil || JSONScanner.exceedsNesting(Self.foundationNestingLimit, in: body)
    }

    private var codingPathOfContext: [any CodingKey] {
        switch self {
        case .keyNotFound(_, let context), .typeMismatch(_, let context), .valueNotFound(_, let context),
            .dataCorrupted(let context):
            context.codingPath
        @unknown default:
            []
        }
    }

    /// The nesting limit this error reports exceeded: `JSONDecoder`'s (512) or ``JSONValue``'s; `nil` for any other
    /// error.
    package var nestingLimit: Int? { nesting?.limit }

    /// The nesting limit exceeded, and whether it is ``JSONValue``'s (rather than `JSONDecoder`'s).
    private var nesting: (limit: Int, byJSONValue: Bool)? {
        guard case .dataCorrupted(let context) = self else { return nil }
        if context.debugDescription.hasPrefix(JSONValue.tooDeepMarker),
            let limit = Int(context.debugDescription.dropFirst(JSONValue.tooDeepMarker.count + 1).prefix { $0.isNumber })
        {
            return (limit, true)
        }
        guard let underlying = context.underlyingError else { return nil }
        let text = String(describing: underlying) + " " + String(reflecting: underlying)
        return text.contains("Too many nested") || text.contains("tooManyNested") ? (Self.foundationNestingLimit, false) : nil
    }

    /// How deeply Foundation's `JSONDecoder` lets arrays and objects nest, on every platform.
    package static let foundationNestingLimit = 512

    /// The message for a document nested deeper than `limit`.
    private static func tooDeep(limit: Int, byJSONValue: Bool, path: String) -> String {
        let whose =
            byJSONValue
            ? "JSONValue's limit (set it with the decoder's userInfo[JSONValue.maximumDepthKey]; JSONDecoder allows "
                + "at most \(foundationNestingLimit))"
            : "JSONDecoder's limit"
        return "the JSON is nested too deeply\(path.isEmpty ? "" : " at " + path): more than \(limit) levels of arrays "
            + "and objects, \(whose). Such a document is broken or hostile; if it is legitimate, read the body as Data and "
            + "parse it with a parser that allows deeper nesting"
    }

    static func render(_ codingPath: [any CodingKey]) -> String {
        var text = ""
        for key in codingPath {
            if let index = key.intValue, key.stringValue.hasPrefix("Index ") || key.stringValue == String(index) {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return text
    }
}
