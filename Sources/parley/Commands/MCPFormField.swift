import Foundation
import Parley

/// One field of the form an elicitation asks the user to fill (a property of its `requestedSchema`): its name, what
/// to show, its type, its choices, and how a typed answer becomes the JSON value sent.
struct MCPFormField: Sendable {
    /// A value a choice field takes, and its title for people.
    struct Choice: Sendable {
        let value: String
        let title: String?
    }

    let name: String
    let title: String?
    let description: String?
    /// The JSON Schema type: `string`, `integer`, `number`, `boolean` or `array` (several choices).
    let type: String
    let choices: [Choice]
    let isRequired: Bool
    let defaultValue: JSONValue?

    /// The fields of `schema`: the required ones in the order the server lists them, then the others by name.
    static func fields(of schema: JSONValue?) -> [MCPFormField] {
        let properties = schema?["properties"]?.objectValue ?? [:]
        let required = (schema?["required"]?.arrayValue ?? []).compactMap(\.stringValue).filter { properties[$0] != nil }
        var names: [String] = []
        for name in required where !names.contains(name) { names.append(name) }
        names += properties.keys.filter { !required.contains($0) }.sorted()
        return names.compactMap { name in
            properties[name].map { MCPFormField(name: name, schema: $0, isRequired: required.contains(name)) }
        }
    }

    init(name: String, schema: JSONValue, isRequired: Bool) {
        self.name = name
        self.title = schema["title"]?.stringValue
        self.description = schema["description"]?.stringValue
        self.type = schema["type"]?.stringValue ?? "string"
        self.isRequired = isRequired
        self.defaultValue = schema["default"]
        let source = type == "array" ? schema["items"] : schema
        self.choices = Self.choices(of: source)
    }

    /// The choices of a schema: `enum` (titled by the legacy `enumNames`), or `oneOf`/`anyOf` of `const`s.
    private static func choices(of schema: JSONValue?) -> [Choice] {
        if let values = schema?["enum"]?.arrayValue {
            let titles = schema?["enumNames"]?.arrayValue ?? []
            return values.enumerated().compactMap { index, value in
                value.stringValue.map { Choice(value: $0, title: index < titles.count ? titles[index].stringValue : nil) }
            }
        }
        let options = schema?["oneOf"]?.arrayValue ?? schema?["anyOf"]?.arrayValue ?? []
        return options.compactMap { option in
            option["const"]?.stringValue.map { Choice(value: $0, title: option["title"]?.stringValue) }
        }
    }

    /// The answer `text` typed as the field says, or why it does not fit.
    func value(from text: String) -> Result<JSONValue, Refusal> {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if type == "array" {
            var values: [JSONValue] = []
            for part in trimmed.split(separator: ",") {
                switch choice(part.trimmingCharacters(in: .whitespaces)) {
                case .success(let value): values.append(.string(value))
                case .failure(let refusal): return .failure(refusal)
                }
            }
            return .success(.array(values))
        }
        if !choices.isEmpty { return choice(trimmed).map(JSONValue.string) }
        switch type {
        case "integer":
            guard let integer = Int(trimmed) else { return .failure(Refusal("\(quoted(text)) is not an integer")) }
            return .success(.int(integer))
        case "number":
            guard let number = Double(trimmed), number.isFinite else {
                return .failure(Refusal("\(quoted(text)) is not a number"))
            }
            return .success(.double(number))
        case "boolean":
            switch trimmed.lowercased() {
            case "true", "yes", "y", "1", "on": return .success(.bool(true))
            case "false", "no", "n", "0", "off": return .success(.bool(false))
            default: return .failure(Refusal("\(quoted(text)) is not a boolean (yes or no, true or false)"))
            }
        default:
            return .success(.string(text))
        }
    }

    /// The choice `text` names, by its value or its title.
    private func choice(_ text: String) -> Result<String, Refusal> {
        if let match = choices.first(where: { $0.value == text })
            ?? choices.first(where: { $0.title?.caseInsensitiveCompare(text) == .orderedSame })
        {
            return .success(match.value)
        }
        let listed = choices.prefix(20).map { MCPOutput.field($0.value) }.joined(separator: ", ")
        return .failure(Refusal("\(quoted(text)) is not one of \(listed)"))
    }

    private func quoted(_ text: String) -> String {
        "'\(MCPOutput.field(String(text.prefix(200))))'"
    }

    /// What the terminal shows before the user types this field's answer: `Title (description) [hints]: `.
    var prompt: String {
        let label = MCPOutput.field(title ?? name)
        var line = label
        if let description, description != title, description != name { line += " (\(MCPOutput.field(description)))" }
        var hints: [String] = []
        if !choices.isEmpty {
            let listed = choices.prefix(20).map { choice in
                MCPOutput.field(choice.title.map { "\(choice.value) (\($0))" } ?? choice.value)
            }
            hints.append((type == "array" ? "several of, comma-separated: " : "one of: ") + listed.joined(separator: ", "))
        } else if type == "boolean" {
            hints.append("yes or no")
        } else if type == "integer" || type == "number" {
            hints.append(type)
        }
        if let defaultValue {
            let shown = defaultValue.stringValue ?? MCPOutput.json(defaultValue, pretty: false)
            hints.append("Enter for \(MCPOutput.field(shown))")
        } else if !isRequired {
            hints.append("optional, Enter to skip")
        }
        return line + (hints.isEmpty ? "" : " [\(hints.joined(separator: "; "))]") + ": "
    }

    /// Why an answer does not fit the field.
    struct Refusal: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }
}
