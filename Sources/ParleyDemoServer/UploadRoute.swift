import Crypto
import HTTPTypes
import Hummingbird
import NIOCore

/// `POST /upload`: streams the request body through SHA-256 without collecting it, so uploads of
/// any size (1 GiB and more) run in constant memory. `maxUploadSize` only limits collected bodies,
/// so it does not apply here.
///
/// Answers `{"bytes": N, "sha256": "<hex>", "contentType": "<type>" | null, "contentLength": N | null}`.
enum UploadRoute {
    /// Registers `POST /upload` on `router`.
    static func register(on router: Router<DemoRequestContext>, events: EventBoard) {
        router.post("upload") { request, context -> Response in
            let report = try await events.closingOnStop(context.channel) {
                var hasher = SHA256()
                var bytes = 0
                for try await buffer in request.body {
                    buffer.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
                    bytes += buffer.readableBytes
                }
                return UploadReport(
                    bytes: bytes,
                    sha256: hasher.finalize().lowercaseHex,
                    contentType: request.headers[.contentType],
                    contentLength: request.headers[.contentLength].flatMap { Int($0) }
                )
            }
            return try DemoResponses.json(report)
        }
    }

    /// Body of a `/upload` answer; absent headers are encoded as `null`, not left out.
    private struct UploadReport: Encodable, Sendable {
        let bytes: Int
        let sha256: String
        let contentType: String?
        let contentLength: Int?

        private enum CodingKeys: String, CodingKey {
            case bytes, sha256, contentType, contentLength
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(self.bytes, forKey: .bytes)
            try container.encode(self.sha256, forKey: .sha256)
            try container.encode(self.contentType, forKey: .contentType)
            try container.encode(self.contentLength, forKey: .contentLength)
        }
    }
}
