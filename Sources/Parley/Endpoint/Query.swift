/// One query item: a name and an optional value (`nil` writes the name alone, as in `?flag`).
public struct QueryItem: Sendable, Hashable {
    /// The name, unencoded.
    public var name: String
    /// The value, unencoded; `nil` for a bare name.
    public var value: String?

    /// A query item.
    public init(_ name: String, _ value: String?) {
        self.name = name
        self.value = value
    }
}

/// Ordered query items of an endpoint, percent-encoded on the wire.
///
/// Names and values are encoded so that spaces, `+`, `&`, `=`, `#` and any non-ASCII text arrive intact:
/// only RFC 3986 unreserved characters are sent as is. Write it as a dictionary literal (order is kept)
/// or an array literal of ``QueryItem``s; repeated names are allowed.
///
/// The two literals treat a missing value differently: in a dictionary literal a `nil` value leaves its item out
/// (handy for optional parameters), while `QueryItem(name, nil)` sends the name alone (`?name`, a flag):
///
/// ```swift
/// let page: Int? = nil
/// let a: Query = ["q": "swift", "page": page.map(String.init)]   // ?q=swift
/// let b: Query = [QueryItem("q", "swift"), QueryItem("verbose", nil)]   // ?q=swift&verbose
/// ```
public struct Query: Sendable, Hashable, ExpressibleByDictionaryLiteral, ExpressibleByArrayLiteral {
    /// The items, in order.
    public var items: [QueryItem]

    /// Query items from a list.
    public init(_ items: [QueryItem] = []) {
        self.items = items
    }

    /// Query items from `["name": "value", …]`; order is kept, and an item whose value is `nil` is left out (not
    /// sent as a bare name: write `QueryItem(name, nil)` for that).
    public init(dictionaryLiteral elements: (String, String?)...) {
        self.items = elements.compactMap { name, value in value.map { QueryItem(name, $0) } }
    }

    /// Query items from `[QueryItem(…), …]`.
    public init(arrayLiteral elements: QueryItem...) {
        self.items = elements
    }

    /// Parses an encoded query string such as `a=1&b=x%20y` (without `?`). A name or value with a malformed
    /// escape (or bytes that are not UTF-8) is kept exactly as written; `+` becomes a space only when
    /// `plusAsSpace` is set (form bodies).
    public init(percentEncoded: String, plusAsSpace: Bool = false) {
        self.items = percentEncoded.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = PercentEncoding.decode(parts[0], plusAsSpace: plusAsSpace) ?? String(parts[0])
            let value = parts.count > 1 ? (PercentEncoding.decode(parts[1], plusAsSpace: plusAsSpace) ?? String(parts[1])) : nil
            return QueryItem(name, value)
        }
    }

    /// Whether there are no items.
    public var isEmpty: Bool { items.isEmpty }

    /// Appends an item.
    public mutating func append(_ name: String, _ value: String?) {
        items.append(QueryItem(name, value))
    }

    /// The encoded query string, without the leading `?`.
    public var encoded: String {
        var output = ""
        appendEncoded(to: &output, spaceAsPlus: false)
        return output
    }

    func appendEncoded(to output: inout String, spaceAsPlus: Bool) {
        for (index, item) in items.enumerated() {
            if index > 0 { output.append("&") }
            Self.appendComponent(item.name, to: &output, spaceAsPlus: spaceAsPlus)
            if let value = item.value {
                output.append("=")
                Self.appendComponent(value, to: &output, spaceAsPlus: spaceAsPlus)
            }
        }
    }

    private static func appendComponent(_ text: String, to output: inout String, spaceAsPlus: Bool) {
        guard spaceAsPlus, text.utf8.contains(UInt8(ascii: " ")) else {
            PercentEncoding.append(text, allowed: .queryComponent, to: &output)
            return
        }
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        for (index, part) in parts.enumerated() {
            if index > 0 { output.append("+") }
            PercentEncoding.append(String(part), allowed: .queryComponent, to: &output)
        }
    }
}
