import HTTPTypes

/// Short labels of bounded cardinality for metric dimensions, span attributes and log metadata.
enum ObservationLabels {
    /// The methods OpenTelemetry names as they are; any other is `_OTHER`.
    private static let knownMethods: Set<HTTPRequest.Method> = [
        .connect, .delete, .get, .head, .options, .patch, .post, .put, .trace,
    ]

    /// `GET`, `POST`, …, or `_OTHER` for a method outside RFC 9110 and PATCH (OpenTelemetry's rule, so a client
    /// sending made-up methods cannot grow a metric without bound).
    static func method(_ method: HTTPRequest.Method) -> String {
        knownMethods.contains(method) ? method.rawValue : "_OTHER"
    }

    /// `1xx` … `5xx` for a response (`5xx` for any code above 599), `error` when there is none.
    static func statusClass(_ status: HTTPResponse.Status?) -> String {
        guard let code = status?.code else { return "error" }
        switch code {
        case ..<200: return "1xx"
        case 200..<300: return "2xx"
        case 300..<400: return "3xx"
        case 400..<500: return "4xx"
        default: return "5xx"
        }
    }

    /// A `ParleyError`'s kind label (`transport`, `timeout`, …); `cancelled` for a `CancellationError`; otherwise
    /// the error's type name (what a middleware sees when it runs outside a `Client`).
    static func errorKind(_ error: any Error) -> String {
        if let error = error as? ParleyError { return error.kind.label }
        if error is CancellationError { return ParleyError.Kind.cancelled.label }
        return String(reflecting: type(of: error))
    }
}
