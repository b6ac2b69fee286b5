/// Why a ``FaultServer`` call failed.
package struct FaultServerError: Error, Sendable, CustomStringConvertible {
    /// How many connections were still open when the wait gave up (0 for other failures).
    package let openConnections: Int
    /// What happened, in words.
    package let message: String

    /// The deadline of ``FaultServer/waitUntilIdle(timeout:)`` passed with `count` connections still open.
    static func stillOpen(_ count: Int, after timeout: Duration) -> FaultServerError {
        FaultServerError(
            openConnections: count,
            message: "\(count) connection(s) to the fault server were still open \(timeout) later: "
                + "the client kept (leaked) them instead of closing them."
        )
    }

    /// The description: the message.
    package var description: String { self.message }
}
