public import HTTPTypes

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// The one error every Parley call throws: what was sent, what came back, what failed and where.
///
/// Switch on ``kind`` to react; read ``description`` for a paragraph to show a person or a log.
public struct ParleyError: Error, Sendable, CustomStringConvertible {
    /// What class of failure this is. A struct, so new kinds do not break your `switch` (use `default`).
    ///
    /// Kinds compare by ``label``. Parley's core declares the kinds below; a module that adds a class of failure
    /// declares its own (`ParleyJSONRPC` declares `jsonRPCError` and `jsonRPCProtocol`), with ``init(label:)``.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        /// A short stable label, usable as a metrics dimension: `"unacceptableStatus"`.
        public let label: String

        /// A kind named `label`, for a module (or an app) that adds a class of failure of its own:
        /// `extension ParleyError.Kind { static let quotaExceeded = Self(label: "quotaExceeded") }`. Choose a label
        /// no other kind uses: two kinds with one label are the same kind.
        public init(label: String) {
            self.label = label
        }

        /// The request could not be built: bad base URL, illegal header name or value. Nothing was sent.
        public static let invalidRequest = Kind(label: "invalidRequest")
        /// The request body could not be encoded. Nothing was sent.
        public static let encoding = Kind(label: "encoding")
        /// The connection failed: refused, reset, closed early, DNS, TLS.
        public static let transport = Kind(label: "transport")
        /// The call took longer than its timeout.
        public static let timeout = Kind(label: "timeout")
        /// The call was cancelled (its task or its ``RequestHandle``).
        public static let cancelled = Kind(label: "cancelled")
        /// The server answered with a status code that is not acceptable.
        public static let unacceptableStatus = Kind(label: "unacceptableStatus")
        /// The response body could not be decoded into the expected type.
        public static let decoding = Kind(label: "decoding")
        /// A validator rejected the response (content type, required keys, custom check).
        public static let validation = Kind(label: "validation")
        /// A middleware failed with an error of its own.
        public static let middleware = Kind(label: "middleware")
        /// The response body is larger than the limit for buffered bodies, or a compressed body inflates past the
        /// decompression limits (size or ratio).
        public static let bodyTooLarge = Kind(label: "bodyTooLarge")
        /// A redirect was not followed: more hops than the policy allows, a loop, a downgrade from `https` to
        /// `http`, an unusable `Location`, or a 307/308 that would need a request body that cannot be sent again.
        public static let redirect = Kind(label: "redirect")
        /// Credentials could not be obtained: the token provider failed to produce or refresh a token. The
        /// message never contains the credentials themselves.
        public static let authentication = Kind(label: "authentication")

        /// The label.
        public var description: String { label }
    }

    /// A download's bytes kept on disk after it failed, to be resumed.
    public struct KeptDownload: Sendable, Hashable {
        /// The partial file's path.
        public var path: String
        /// How many bytes of the body it holds.
        public var bytes: Int64

        /// The part of a download kept at `path`, `bytes` long.
        public init(path: String, bytes: Int64) {
            self.path = path
            self.bytes = bytes
        }
    }

    /// The method and URL of the request that failed.
    public struct RequestSummary: Sendable, Hashable, CustomStringConvertible {
        /// The method.
        public var method: HTTPRequest.Method
        /// The URL as sent (query included), its user info (`user:password@`) redacted when Parley made the
        /// summary.
        public var url: String
        /// "GET http://…", with the URL's user info (`user:password@`) redacted.
        public var description: String { "\(method.rawValue) \(RequestTarget(url).redacted)" }
    }

    /// The stored parts, boxed (``Boxed``): an error is one reference wide, so that the async frames of every call
    /// that may throw one (typed throws keeps the error in the caller's frame) stay small. An error is rare and built
    /// once; a change makes a new box.
    private struct Fields: Sendable {
        var kind: Kind
        var message: String
        var request: RequestSummary?
        var curlCommand: String?
        var response: HTTPResponse?
        var body: Data?
        var codingPath: String?
        var underlying: (any Error)?
        var attempts: Int?
        var keptDownload: KeptDownload?
        var serverPublicKeyPins: [String]?
        var keepsLineFeeds = false
    }

    private var fields: Boxed<Fields>

    /// The class of failure.
    public var kind: Kind {
        get { fields.kind }
        set { fields.kind = newValue }
    }
    /// What failed, in words; what a server sent is quoted with its unprintable characters escaped.
    public var message: String {
        get { fields.message }
        set { fields.message = newValue }
    }
    /// The request, once it was built.
    public var request: RequestSummary? {
        get { fields.request }
        set { fields.request = newValue }
    }
    /// The failed call's last request as a `curl` command line, as it was handed to the transport (after every
    /// middleware: credentials, cookies, the `Accept-Encoding` Parley adds), with the values of secret fields and
    /// credential query items as `<redacted>` (``CurlCommand``); `nil` when no request was built. Request bodies are
    /// not kept in errors, so it has none.
    public var curlCommand: String? {
        get { fields.curlCommand }
        set { fields.curlCommand = newValue }
    }
    /// The response head, when one arrived.
    public var response: HTTPResponse? {
        get { fields.response }
        set { fields.response = newValue }
    }
    /// The first bytes of the response body (at most 4 KiB), when read.
    public var body: Data? {
        get { fields.body }
        set { fields.body = newValue }
    }
    /// For decoding errors: where in the body it failed, as `items[3].name`.
    public var codingPath: String? {
        get { fields.codingPath }
        set { fields.codingPath = newValue }
    }
    /// The error that caused this one, if any.
    public var underlying: (any Error)? {
        get { fields.underlying }
        set { fields.underlying = newValue }
    }
    /// How many attempts the call made, when a ``RetryMiddleware`` sent it more than once and gave up; `nil` otherwise.
    public var attempts: Int? {
        get { fields.attempts }
        set { fields.attempts = newValue }
    }
    /// For a download that can be resumed: the bytes received so far and where they are kept (download again with
    /// `resume: true` to continue); `nil` otherwise.
    public var keptDownload: KeptDownload? {
        get { fields.keptDownload }
        set { fields.keptDownload = newValue }
    }
    /// For a connection refused because the server presented no pinned public key (``TLSPolicy/pinnedPublicKeys``):
    /// the pins of the server's chain, leaf first, in the base64 form of ``TLSPolicy/pinnedPublicKeys``; `nil` otherwise.
    public var serverPublicKeyPins: [String]? {
        get { fields.serverPublicKeyPins }
        set { fields.serverPublicKeyPins = newValue }
    }
    /// Whether ``message`` and ``description`` keep their line feeds: only for messages Parley writes on several
    /// lines about local data (``init(_:multilineMessage:underlying:)``).
    package var keepsLineFeeds: Bool { fields.keepsLineFeeds }

    /// An error of `kind` with a message.
    ///
    /// Characters of `message` that are not printable (controls, bidi overrides) are escaped as in
    /// ``bodyExcerpt``, since a message often quotes what a server sent.
    public init(_ kind: Kind, _ message: String, underlying: (any Error)? = nil) {
        fields = Boxed(Fields(kind: kind, message: PrintableText.escaping(message), underlying: underlying))
    }

    /// An error whose message is written on several lines (a report about local data, such as a test fixture's
    /// unused exchanges): line feeds are kept, every other character that is not printable is escaped.
    package init(_ kind: Kind, multilineMessage: String, underlying: (any Error)? = nil) {
        let message = PrintableText.escaping(multilineMessage, keepingLineFeeds: true)
        fields = Boxed(Fields(kind: kind, message: message, underlying: underlying, keepsLineFeeds: true))
    }

    /// The status code of the response, if any.
    public var status: HTTPResponse.Status? { response?.status }

    /// The body excerpt as text, safe to print: "empty body" when empty, a byte count when it is not UTF-8
    /// text, otherwise the text with every character that is not printable escaped (CR and LF as `\r` and `\n`,
    /// other controls and bidi overrides as `\u{1B}`, stray bytes that are not UTF-8 as `\xFF`), so a server
    /// cannot forge log lines or drive a terminal through it. ``body`` keeps the bytes as they came.
    public var bodyExcerpt: String? {
        guard let body else { return nil }
        if body.isEmpty { return "empty body" }
        let truncated = body.count > ParleyError.excerptLimit
        var prefix = body.prefix(ParleyError.excerptLimit)
        if truncated, String(validating: prefix, as: UTF8.self) == nil {
            // The cut may have split a character: drop up to three trailing bytes of it.
            for drop in 1...3 where String(validating: prefix.dropLast(drop), as: UTF8.self) != nil {
                prefix = prefix.dropLast(drop)
                break
            }
        }
        let (text, invalidBytes) = PrintableText.escapingCounted(bytes: prefix)
        // Mostly stray bytes: binary data, not text with a few bad bytes.
        if invalidBytes > 0, invalidBytes * 8 > prefix.count { return "<\(body.count) bytes, not UTF-8 text>" }
        return truncated ? text + "…" : text
    }

    /// How many body bytes an error keeps.
    public static let excerptLimit = 4096

    /// `text` when it has at most ``excerptLimit`` bytes of UTF-8; otherwise its first characters and a note of its
    /// full size, `… (the first 4032 of 8388608 bytes)`, within that limit (so that an excerpt is its own excerpt):
    /// how text a peer wrote is kept, such as a JSON-RPC error object's message and the messages that quote it.
    package static func excerpt(_ text: String) -> String {
        let size = text.utf8.count
        guard size > ParleyError.excerptLimit else { return text }
        // The note takes at most 64 bytes ("… (the first " is 15 of them, two numbers of at most 19 digits, …).
        var end = text.utf8.index(text.utf8.startIndex, offsetBy: ParleyError.excerptLimit - 64)
        // Back to the start of a character: at most three bytes of one that was cut.
        while end > text.startIndex, end.samePosition(in: text.unicodeScalars) == nil { text.utf8.formIndex(before: &end) }
        let kept = String(text.unicodeScalars[..<end])
        return kept + "… (the first \(kept.utf8.count) of \(size) bytes)"
    }

    /// This error with the response it concerns: its head and, when `body` is given, the first ``excerptLimit``
    /// bytes of it. The one way Parley attaches a response to an error; `onlyIfMissing` keeps a head (and body) the
    /// error already has, from a deeper stage that knew more.
    package func attaching(response: HTTPResponse?, body: Data? = nil, onlyIfMissing: Bool = false) -> ParleyError {
        guard !onlyIfMissing || self.response == nil else { return self }
        var parts = fields.value
        parts.response = response
        if let body { parts.body = body.prefix(ParleyError.excerptLimit) }
        var error = self
        error.fields.value = parts
        return error
    }

    /// Wraps any error as a ``ParleyError``: a `ParleyError` stays as it is, cancellation becomes
    /// ``Kind/cancelled``, anything else becomes `kind` with `message`.
    public static func wrapping(_ error: any Error, as kind: Kind, _ message: String) -> ParleyError {
        if let error = error as? ParleyError { return error }
        if error is CancellationError {
            return ParleyError(.cancelled, "The call was cancelled.", underlying: error)
        }
        return ParleyError(kind, message, underlying: error)
    }
}
