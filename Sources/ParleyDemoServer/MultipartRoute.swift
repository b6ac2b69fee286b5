import Hummingbird
import NIOCore

/// `POST /multipart`: parses a streamed `multipart/form-data` body (multipart-kit's streaming parser,
/// independent of Parley's builder) and answers
/// `{"boundary": "...", "parts": [{"name", "filename", "contentType", "bytes", "sha256", "text", "rawDisposition"}]}`
/// with the parts in order (see ``MultipartPartReport``). A request that is not multipart/form-data or
/// a malformed body is answered with 400 and `{"error": "<what was wrong>"}`.
enum MultipartRoute {
    /// Longest boundary RFC 2046 allows.
    static let maxBoundaryLength = 70

    /// Registers `POST /multipart` on `router`.
    static func register(on router: Router<DemoRequestContext>, events: EventBoard) {
        router.post("multipart") { request, context -> Response in
            let boundary: String
            switch self.boundary(contentType: request.headers[.contentType]) {
            case .success(let value): boundary = value
            case .failure(let failure): return DemoResponses.error(failure.message, status: .badRequest)
            }
            let collector = MultipartCollector(boundary: boundary)
            let result = try await events.closingOnStop(context.channel) {
                () async throws -> Result<[MultipartPartReport], MultipartFailure> in
                // After a failure the rest of the body is still read (and dropped), so that the client
                // can finish sending and read the 400 instead of seeing its connection reset.
                var failure: MultipartFailure?
                for try await buffer in request.body where failure == nil {
                    do throws(MultipartFailure) {
                        try collector.feed(buffer)
                    } catch {
                        failure = error
                    }
                }
                if let failure { return .failure(failure) }
                return Result { () throws(MultipartFailure) in try collector.finish() }
            }
            switch result {
            case .success(let parts):
                return try DemoResponses.json(MultipartReport(boundary: boundary, parts: parts))
            case .failure(let failure):
                return DemoResponses.error("malformed multipart body: \(failure.message)", status: .badRequest)
            }
        }
    }

    /// The `boundary` parameter of a `multipart/form-data` content type.
    private static func boundary(contentType: String?) -> Result<String, MultipartFailure> {
        guard let contentType, let parameters = HeaderParameters(contentType) else {
            return .failure(MultipartFailure("Content-Type must be multipart/form-data with a boundary"))
        }
        guard parameters.value.lowercased() == "multipart/form-data" else {
            return .failure(MultipartFailure("Content-Type must be multipart/form-data, not \(parameters.value)"))
        }
        guard let boundary = parameters.first("boundary"), (1...self.maxBoundaryLength).contains(boundary.utf8.count) else {
            return .failure(MultipartFailure("Content-Type needs a boundary parameter of 1 to 70 characters"))
        }
        return .success(boundary)
    }

    /// Body of a `/multipart` answer.
    private struct MultipartReport: Encodable {
        let boundary: String
        let parts: [MultipartPartReport]
    }
}
