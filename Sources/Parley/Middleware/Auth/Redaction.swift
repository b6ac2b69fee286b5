#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Scrubs credentials out of text and errors, so a `ParleyError` never shows a token, password or API key.
///
/// The auth middlewares run every error from downstream (and from a token provider) through ``scrub(_:)-(any Error)``:
/// each secret in the message, the request URL, the body excerpt and the underlying error's description is
/// replaced with `<redacted>`. An underlying error whose description shows a secret is replaced by a
/// ``RedactedError`` carrying the scrubbed description; other underlying errors are kept as they are.
package struct Redaction: Sendable {
    /// What a secret is replaced with.
    package static let placeholder = "<redacted>"

    /// The secrets, longest first (so a secret containing another is replaced whole).
    private let secrets: [String]

    /// A redaction of `secrets`; empty ones are ignored.
    package init(_ secrets: [String]) {
        self.secrets = Set(secrets.filter { !$0.isEmpty }).sorted { $0.utf8.count > $1.utf8.count }
    }

    /// Whether `text` shows any of the secrets.
    package func reveals(_ text: String) -> Bool {
        secrets.contains { text.contains($0) }
    }

    /// `text` with every secret replaced by ``placeholder``.
    package func scrub(_ text: String) -> String {
        var text = text
        for secret in secrets where text.contains(secret) {
            text = text.replacing(secret, with: Self.placeholder)
        }
        return text
    }

    /// `error` with its message, request URL, body excerpt and underlying error scrubbed.
    package func scrub(_ error: ParleyError) -> ParleyError {
        var error = error
        error.message = scrub(error.message)
        if let url = error.request?.url { error.request?.url = scrub(url) }
        if let body = error.body { error.body = scrub(body) }
        if let underlying = error.underlying { error.underlying = scrub(underlying) }
        return error
    }

    /// A `ParleyError` scrubbed as ``scrub(_:)-(ParleyError)``; any other error unchanged unless its description
    /// shows a secret, in which case it becomes a ``RedactedError``.
    package func scrub(_ error: any Error) -> any Error {
        if let error = error as? ParleyError { return scrub(error) }
        let description = String(describing: error)
        guard reveals(description) else { return error }
        return RedactedError(typeName: String(reflecting: type(of: error)), description: scrub(description))
    }

    /// `data` with every secret's UTF-8 bytes replaced by ``placeholder``.
    private func scrub(_ data: Data) -> Data {
        var bytes = [UInt8](data)
        for secret in secrets {
            let needle = Array(secret.utf8)
            var output: [UInt8] = []
            var index = 0
            while index < bytes.count {
                if bytes[index] == needle[0], bytes[index...].starts(with: needle) {
                    output.append(contentsOf: Self.placeholder.utf8)
                    index += needle.count
                } else {
                    output.append(bytes[index])
                    index += 1
                }
            }
            bytes = output
        }
        return Data(bytes)
    }
}

/// An error whose description showed a credential: its type and its description with the credential replaced by
/// `<redacted>`. The original error is dropped, since any of its fields may hold the credential.
public struct RedactedError: Error, Sendable, CustomStringConvertible {
    /// The type of the original error, as `Module.Type`.
    public let typeName: String
    /// The original error's description, scrubbed.
    public let description: String
}
