import ArgumentParser
import Foundation
import Parley

/// What the request items of one command line add up to: header fields, query items and a body.
///
/// Data fields (`key=value`, `key:=json` and their `@file` forms) make a JSON object with the members in the order
/// given; a key given more than once becomes an array of its values. With `--form`, `key=value` fields make an
/// `application/x-www-form-urlencoded` body instead. Without data fields there is no body (with `--form`, an empty
/// form).
struct HTTPRequestItems {
    /// The header fields the items set, in order (a name may repeat).
    private(set) var headers = Headers()
    /// Header names (lowercased) that `Header:` removed: no default field of that name is sent.
    private(set) var removedHeaders: Set<String> = []
    /// The query items, in order, to add to the URL's own.
    private(set) var query: [QueryItem] = []
    /// The body's bytes, `nil` for none.
    private(set) var body: Data?
    /// Whether the body is JSON (so the JSON `Content-Type` and `Accept` defaults apply).
    private(set) var isJSON = false

    /// Builds the request parts from `items`.
    ///
    /// - Throws: `ValidationError` for a raw JSON value that is not JSON, a file that cannot be read, or a raw JSON
    ///   field with `--form`.
    init(_ items: [HTTPRequestItem], form: Bool) throws {
        var members: [(key: String, values: [String])] = []
        var formFields: [QueryItem] = []
        for item in items {
            switch item.kind {
            case .header:
                if item.value.isEmpty {
                    removedHeaders.insert(item.name.lowercased())
                    headers.fields.removeAll { $0.name.lowercased() == item.name.lowercased() }
                } else {
                    headers.append(item.name, item.value)
                }
            case .emptyHeader:
                headers.append(item.name, "")
            case .query:
                query.append(QueryItem(item.name, item.value))
            case .field, .fieldFromFile:
                let text = item.kind == .field ? item.value : try Self.contents(of: item.value, for: item)
                if form {
                    formFields.append(QueryItem(item.name, text))
                } else {
                    Self.add(try Self.quoted(text), for: item.name, to: &members)
                }
            case .jsonField, .jsonFieldFromFile:
                guard !form else {
                    throw ValidationError(
                        "\(item.name):=… is a raw JSON field, which a --form body cannot carry; write \(item.name)=value."
                    )
                }
                let text = item.kind == .jsonField ? item.value : try Self.contents(of: item.value, for: item)
                Self.add(try Self.compactJSON(text, for: item), for: item.name, to: &members)
            }
        }
        if form {
            body = Data(Query(formFields).encoded.utf8)
        } else if !members.isEmpty {
            isJSON = true
            let object = try members.map { member in
                let value = member.values.count == 1 ? member.values[0] : "[" + member.values.joined(separator: ",") + "]"
                return try Self.quoted(member.key) + ":" + value
            }
            body = Data(("{" + object.joined(separator: ",") + "}").utf8)
        }
    }

    private static func add(_ value: String, for key: String, to members: inout [(key: String, values: [String])]) {
        if let index = members.firstIndex(where: { $0.key == key }) {
            members[index].values.append(value)
        } else {
            members.append((key, [value]))
        }
    }

    /// `text` checked as JSON and written without whitespace.
    private static func compactJSON(_ text: String, for item: HTTPRequestItem) throws -> String {
        do {
            return String(decoding: try JSONFormatter(layout: .compact, colors: false).format(Array(text.utf8)), as: UTF8.self)
        } catch {
            let source = item.kind == .jsonField ? "" : " (from \(item.value))"
            throw ValidationError(
                "The value of \(item.name):= is not valid JSON\(source): \(error). Quote a JSON string "
                    + "(\(item.name):='\"text\"'), or send a string field with \(item.name)=text."
            )
        }
    }

    /// The text of the file `path`, for a `key=@file` or `key:=@file` item.
    private static func contents(of path: String, for item: HTTPRequestItem) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ValidationError("\(item.name): cannot read the file \(String(reflecting: path)).")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ValidationError("\(item.name): the file \(String(reflecting: path)) is not UTF-8 text.")
        }
        return text
    }

    /// `text` as a JSON string literal (quotes, backslashes and control characters escaped, the rest as is).
    static func quoted(_ text: String) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        return String(decoding: try encoder.encode(text), as: UTF8.self)
    }
}
