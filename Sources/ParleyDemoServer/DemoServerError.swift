/// Errors raised internally by the demo server.
///
/// Several of these are thrown on purpose from response body writers: Hummingbird closes the
/// connection when a body writer throws, which is how the server aborts a response mid-stream.
enum DemoServerError: Error, CustomStringConvertible {
    /// The server task finished before the listening socket was bound.
    case stoppedBeforeListening
    /// The server is shutting down, so a long-running response is aborted.
    case serverStopping
    /// The client closed its side of the connection.
    case clientDisconnected
    /// A route deliberately drops the connection (e.g. `/close-mid-body`).
    case intentionalAbort

    var description: String {
        switch self {
        case .stoppedBeforeListening: "the demo server stopped before it started listening"
        case .serverStopping: "the demo server is stopping"
        case .clientDisconnected: "the client closed the connection"
        case .intentionalAbort: "the connection was closed on purpose"
        }
    }
}
