/// Why a multipart body was refused (answered with 400).
struct MultipartFailure: Error, Sendable {
    /// What was wrong.
    let message: String

    init(_ message: String) {
        self.message = message
    }
}
