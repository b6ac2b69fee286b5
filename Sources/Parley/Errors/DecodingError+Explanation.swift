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
            let detail = context.underlyingError.map { String(describing: $0) } ?? context.debugDescription
            return (path, "the body is not valid JSON or holds an invalid value\(path.isEmpty ? "" : " at " + path): \(detail)")
        @unknown default:
            return ("", String(describing: self))
        }
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
