import ArgumentParser
import Foundation
import HTTPTypes

/// One httpie-style request item from the command line: `key=value`, `key:=json`, `Header:value`, `name==value`…
///
/// The item is split at its first separator, reading left to right; where several separators start at the same
/// place the longest wins (`a:=1` is a raw JSON field, not the header `a` with value `=1`). A backslash makes the
/// next `:`, `=`, `@`, `;` or `\` an ordinary character, in the name and in the value: `a\=b=c` is the field
/// `a=b` with value `c`, `X-Path:C\:\\tmp` the header `X-Path` with value `C:\tmp`. A backslash before any other
/// character is kept as it is.
struct HTTPRequestItem: Equatable {
    /// What an item adds to the request.
    enum Kind: Equatable {
        /// `Header:value` sets a header field; `Header:` (no value) removes a default header such as `Accept`.
        case header
        /// `Header;` sends the header with an empty value.
        case emptyHeader
        /// `name==value` adds a query item to the URL.
        case query
        /// `key=value`: a string field of the JSON (or `--form`) body.
        case field
        /// `key:=json`: a JSON field taken as written (`n:=42`, `tags:='["a","b"]'`).
        case jsonField
        /// `key=@file`: a string field holding the text of a file.
        case fieldFromFile
        /// `key:=@file`: a JSON field holding the JSON of a file.
        case jsonFieldFromFile
    }

    /// The separators, longest first so that the longest one wins where several start at the same place.
    private static let separators: [(text: [Character], kind: Kind?)] = [
        (Array(":=@"), .jsonFieldFromFile), (Array("==@"), nil), (Array("=@"), .fieldFromFile), (Array("=="), .query),
        (Array(":="), .jsonField), (Array("="), .field), (Array(":"), .header), (Array(";"), .emptyHeader),
        (Array("@"), nil),
    ]

    /// The characters a backslash escapes.
    private static let escapable: Set<Character> = [":", "=", "@", ";", "\\"]

    let kind: Kind
    /// The header, field or query item name, escapes resolved.
    let name: String
    /// The value, escapes resolved (a file path for the `…FromFile` kinds).
    let value: String

    init(kind: Kind, name: String, value: String) {
        self.kind = kind
        self.name = name
        self.value = value
    }

    /// Parses `text`.
    ///
    /// - Throws: `ValidationError` saying what is wrong and how to write the item.
    init(parsing text: String) throws {
        // Each character, and whether a backslash made it an ordinary one.
        var characters: [(character: Character, escaped: Bool)] = []
        var pendingBackslash = false
        for character in text {
            if pendingBackslash {
                pendingBackslash = false
                if Self.escapable.contains(character) {
                    characters.append((character, true))
                    continue
                }
                characters.append(("\\", false))
            } else if character == "\\" {
                pendingBackslash = true
                continue
            }
            characters.append((character, false))
        }
        if pendingBackslash { characters.append(("\\", false)) }

        for start in characters.indices where !characters[start].escaped {
            for separator in Self.separators {
                let end = start + separator.text.count
                guard end <= characters.count,
                    characters[start..<end].elementsEqual(separator.text, by: { !$0.escaped && $0.character == $1 })
                else { continue }
                let name = String(characters[..<start].map(\.character))
                let value = String(characters[end...].map(\.character))
                guard let kind = separator.kind else {
                    throw ValidationError(
                        "\(String(reflecting: text)): file uploads (name@file, name==@file) are not supported here; "
                            + "send a file with 'parley upload URL FILE', or a file's text with name=@file."
                    )
                }
                try self.init(checking: kind, name: name, value: value, item: text)
                return
            }
        }
        throw ValidationError(
            "\(String(reflecting: text)) is not a request item. Write key=value (JSON string field), key:=json (raw JSON "
                + "field), Header:value (header), Header; (empty header) or name==value (query item); escape a literal "
                + ":, =, @ or ; with a backslash."
        )
    }

    private init(checking kind: Kind, name: String, value: String, item: String) throws {
        guard !name.isEmpty else {
            throw ValidationError("\(String(reflecting: item)) has no name before its separator.")
        }
        switch kind {
        case .header, .emptyHeader:
            guard HTTPField.Name(name) != nil else {
                throw ValidationError(
                    "\(String(reflecting: item)): \(String(reflecting: name)) is not a valid header name (letters, digits "
                        + "and !#$%&'*+-.^_`|~ only). To send a field or query item, write name=value or name==value."
                )
            }
            if kind == .emptyHeader, !value.isEmpty {
                throw ValidationError(
                    "\(String(reflecting: item)): write 'Header;' alone for an empty header, or 'Header:value' for a value."
                )
            }
            let trimmed = value.trimmingCharacters(in: .whitespaces)
            guard HTTPField.isValidValue(trimmed) else {
                throw ValidationError("\(String(reflecting: item)): a header value may not contain control characters.")
            }
            self.init(kind: kind, name: name, value: trimmed)
        default:
            self.init(kind: kind, name: name, value: value)
        }
    }
}
