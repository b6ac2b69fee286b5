import Parley

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

extension URLSessionTransport {
    /// The `Content-Length` values of `response` (FoundationNetworking joins repeated fields of the same spelling
    /// with ", "; fields spelled differently stay apart).
    static func contentLengthValues(of response: HTTPURLResponse) -> [String] {
        response.allHeaderFields.compactMap { key, value -> String? in
            guard let key = key as? String, key.lowercased() == "content-length" else { return nil }
            return value as? String
        }
    }

    /// The body length `response` declares: its one `Content-Length`, when that is a valid length.
    static func declaredLength(of response: HTTPURLResponse) -> Int64? {
        let values = contentLengthValues(of: response)
        guard values.count == 1 else { return nil }
        return validLength(values[0])
    }

    /// `text` as a length: 1 to 19 decimal digits that fit an `Int64`, as RFC 9110 §8.6 and the other transport's
    /// parser (llhttp) read it.
    private static func validLength(_ text: String) -> Int64? {
        let trimmed = text.trimmingHTTPWhitespace()
        guard !trimmed.isEmpty, trimmed.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int64(trimmed)
    }

    /// Fails when `response`'s framing is not valid HTTP/1.1 where libcurl lets it pass: a `Content-Length` that
    /// is repeated (with different or equal values), a list (`5, 10`) or too large for any body
    /// (`99999999999999999999999`), which libcurl reads as "until the connection closes" or as its first number.
    /// A message whose length is ambiguous can be read two ways (request smuggling through a proxy), so it is
    /// refused as AsyncHTTPClient refuses it.
    static func checkFraming(of response: HTTPURLResponse) throws(ParleyError) {
        let values = contentLengthValues(of: response)
        guard !values.isEmpty else { return }
        if values.count == 1, validLength(values[0]) != nil { return }
        let shown = values.map { printable($0) }.joined(separator: "\", \"")
        throw ParleyError(
            .transport,
            "The server's response is not valid HTTP/1.1: its Content-Length (\"\(shown)\") is not one decimal length "
                + "(repeated, a list, or too large), so where its body ends is ambiguous; the response was dropped."
        )
    }

    /// `text` with anything but printable ASCII escaped, cut at 64 characters.
    static func printable(_ text: String) -> String {
        var shown = ""
        for scalar in text.unicodeScalars.prefix(64) {
            if (0x20..<0x7F).contains(scalar.value) && scalar != "\\" && scalar != "\"" {
                shown.unicodeScalars.append(scalar)
            } else {
                shown += "\\u{\(String(scalar.value, radix: 16))}"
            }
        }
        return text.unicodeScalars.count > 64 ? shown + "…" : shown
    }
}
