public import HTTPTypes

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Checks a response and its buffered body before decoding (Backchat's response-data validator).
///
/// Throw ``ValidationFailure`` (or any error) to reject the response; the call then fails with a
/// ``ParleyError`` of kind ``ParleyError/Kind/validation`` carrying your message.
public struct ResponseValidator: Sendable {
    /// The check: sees the response head and the whole body.
    public let validate: @Sendable (HTTPResponse, Data) throws -> Void

    /// A validator from a closure.
    public init(_ validate: @escaping @Sendable (HTTPResponse, Data) throws -> Void) {
        self.validate = validate
    }

    /// A validator from a closure that returns `false` to reject, with the message to report.
    public static func check(
        _ message: String,
        _ predicate: @escaping @Sendable (HTTPResponse, Data) -> Bool
    ) -> ResponseValidator {
        ResponseValidator { response, data in
            guard predicate(response, data) else { throw ValidationFailure(message) }
        }
    }

    /// Requires the body to be JSON containing every key path in `keyPaths`.
    ///
    /// A key path is dot-separated (`profile.avatar`); `[]` applies the rest to every array element
    /// (`items[].name`) and `[N]` to one (`items[0].id`). The error names every missing path, for example
    /// `missing required JSON keys: name, profile.avatar, items[3].name`.
    public static func requiredJSONKeys(_ keyPaths: [String]) -> ResponseValidator {
        let parsed = keyPaths.map(RequiredKeyPath.init)
        return ResponseValidator { _, data in
            let json: JSONValue
            do {
                json = try JSONDecoder().decode(JSONValue.self, from: data)
            } catch {
                throw ValidationFailure(
                    data.isEmpty
                        ? "expected a JSON body with keys \(keyPaths.joined(separator: ", ")), but the body is empty"
                        : "expected a JSON body with keys \(keyPaths.joined(separator: ", ")), but the body is not valid JSON"
                )
            }
            var missing: [String] = []
            for path in parsed { path.collectMissing(in: json, into: &missing) }
            guard missing.isEmpty else {
                throw ValidationFailure("missing required JSON keys: \(missing.joined(separator: ", "))")
            }
        }
    }
}

/// The error a validator throws to reject a response, with a message for the user.
public struct ValidationFailure: Error, Sendable, CustomStringConvertible {
    /// What was wrong.
    public let message: String

    /// A failure with a message.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
