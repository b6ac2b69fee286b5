public import HTTPTypes

/// Header fields as the user writes them: names and values as plain strings, in order.
///
/// Unlike `HTTPFields`, which silently replaces illegal bytes, `Headers` keeps what you wrote and Parley
/// refuses the request with ``ParleyError/Kind/invalidRequest`` before anything is sent when a name is not
/// a valid token or a value contains a control character such as CR or LF.
public struct Headers: Sendable, Hashable, ExpressibleByDictionaryLiteral {
    /// One header field.
    public struct Field: Sendable, Hashable {
        /// The field name.
        public var name: String
        /// The field value.
        public var value: String
    }

    /// The fields, in order; a name may repeat.
    public var fields: [Field]

    /// No fields.
    public init() {
        fields = []
    }

    /// Fields from `["Name": "value", …]`, in the order written.
    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { Field(name: $0.0, value: $0.1) }
    }

    /// Fields copied from `HTTPFields`.
    public init(_ httpFields: HTTPFields) {
        fields = httpFields.map { Field(name: $0.name.rawName, value: $0.value) }
    }

    /// Whether there are no fields.
    public var isEmpty: Bool { fields.isEmpty }

    /// The first value of the field `name` (case-insensitive), or `nil`.
    public subscript(name: String) -> String? {
        fields.first { $0.name.caseInsensitiveEquals(name) }?.value
    }

    /// Appends a field, keeping any other field of the same name.
    public mutating func append(_ name: String, _ value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces every field named `name` (case-insensitive) with one field.
    public mutating func set(_ name: String, _ value: String) {
        fields.removeAll { $0.name.caseInsensitiveEquals(name) }
        fields.append(Field(name: name, value: value))
    }

    /// Whether a field named `name` (case-insensitive) is present.
    public func contains(_ name: String) -> Bool {
        fields.contains { $0.name.caseInsensitiveEquals(name) }
    }

    /// These fields with `overrides` applied: every name in `overrides` replaces all fields of that name here.
    public func merging(_ overrides: Headers) -> Headers {
        guard !overrides.isEmpty else { return self }
        guard !isEmpty else { return overrides }
        var merged = self
        merged.fields.removeAll { field in overrides.fields.contains { $0.name.caseInsensitiveEquals(field.name) } }
        merged.fields.append(contentsOf: overrides.fields)
        return merged
    }

    /// Validates every field and converts to `HTTPFields`.
    /// - Throws: ``ParleyError`` of kind ``ParleyError/Kind/invalidRequest`` naming the offending field.
    public func httpFields() throws(ParleyError) -> HTTPFields {
        var result = HTTPFields()
        result.reserveCapacity(fields.count)
        for field in fields {
            guard let name = HTTPField.Name(field.name) else {
                throw ParleyError(
                    .invalidRequest,
                    "The header name \(String(reflecting: field.name)) is not a valid HTTP field name (RFC 9110 token); "
                        + "use only letters, digits and !#$%&'*+-.^_`|~."
                )
            }
            guard HTTPField.isValidValue(field.value) else {
                throw ParleyError(
                    .invalidRequest,
                    "The value of header \(field.name) is illegal: \(String(reflecting: field.value)). Header values may not "
                        + "contain CR, LF, NUL or other control characters, nor start or end with whitespace."
                )
            }
            result.append(HTTPField(name: name, value: field.value))
        }
        return result
    }
}

extension String {
    func caseInsensitiveEquals(_ other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        return zip(utf8, other.utf8).allSatisfy { a, b in
            a == b || (a | 0x20 == b | 0x20 && (a | 0x20) >= UInt8(ascii: "a") && (a | 0x20) <= UInt8(ascii: "z"))
        }
    }
}
