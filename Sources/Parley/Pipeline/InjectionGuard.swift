import HTTPTypes

/// Refuses, at the seam between the middlewares and the transport, a request that a middleware tried to smuggle
/// a header line or a second request into.
///
/// `HTTPFields` never holds CR or LF: setting `request.headerFields[name] = "abc\r\nX-Injected: 1"` stores
/// `abc  X-Injected: 1`, each CR, LF or NUL turned into a space, and the original bytes are gone. So what is
/// checked here is the shape they leave: a field value with two spaces (or tabs) in a row followed by a field
/// name and a colon, and a path or authority with a space or tab (Parley percent-encodes those, so only a
/// middleware can put them there). Values that enter through Parley's own API (endpoint and client headers,
/// ``BearerAuthMiddleware`` tokens, ``APIKeyMiddleware`` keys, ``BasicAuthMiddleware`` credentials) are checked
/// before they are set, so those are refused whatever their shape.
enum InjectionGuard {
    /// Throws ``ParleyError/Kind/invalidRequest`` if `request` carries a trace of CR/LF injection.
    static func refuseInjected(_ request: HTTPRequest) throws(ParleyError) {
        for field in request.headerFields where looksInjected(field.value) {
            throw ParleyError(
                .invalidRequest,
                "The value of header \(field.name.rawName) set by a middleware holds what a CR LF followed by another "
                    + "header line becomes once HTTPFields replaces the CR LF with spaces (two spaces, then 'Name:'): "
                    + "refusing to send it. Validate values with HTTPField.isValidValue before setting them. Nothing was sent."
            )
        }
        try checkSpaces(in: request.path, part: "path")
        try checkSpaces(in: request.authority, part: "authority")
    }

    private static func checkSpaces(in value: String?, part: String) throws(ParleyError) {
        guard let value, value.utf8.contains(where: { $0 == 0x20 || $0 == 0x09 }) else { return }
        throw ParleyError(
            .invalidRequest,
            "The request's \(part) holds a space or tab, which only a middleware can put there (Parley "
                + "percent-encodes them) and which is what HTTPTypes makes of a CR, LF or NUL: refusing to send it. "
                + "Percent-encode the \(part) instead. Nothing was sent."
        )
    }

    static func looksInjected(_ value: String) -> Bool {
        // A native string's bytes are read in place; only a bridged one is copied.
        if let found = value.utf8.withContiguousStorageIfAvailable({ looksInjected(bytes: $0) }) { return found }
        return looksInjected(bytes: Array(value.utf8))
    }

    private static func looksInjected<Bytes: RandomAccessCollection<UInt8>>(bytes: Bytes) -> Bool where Bytes.Index == Int {
        var index = 0
        while index + 1 < bytes.count {
            guard bytes[index].isHTTPWhitespace, bytes[index + 1].isHTTPWhitespace else {
                index += 1
                continue
            }
            var end = index + 2
            while end < bytes.count, bytes[end].isHTTPWhitespace { end += 1 }
            var tokenEnd = end
            while tokenEnd < bytes.count, bytes[tokenEnd].isHTTPTokenCharacter { tokenEnd += 1 }
            if tokenEnd > end, tokenEnd < bytes.count, bytes[tokenEnd] == UInt8(ascii: ":") { return true }
            index = max(end, index + 1)
        }
        return false
    }
}
