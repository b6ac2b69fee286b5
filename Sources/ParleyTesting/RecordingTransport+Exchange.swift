import HTTPTypes
import Parley

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension RecordingTransport {
    /// The exchange as it is written: every redaction applied.
    func exchange(
        _ request: HTTPRequest,
        url: String,
        body: (bytes: Data, ended: Bool, overflowed: Bool)?,
        response: HTTPResponse,
        responseBody: Fixture.Body?
    ) -> Fixture.Exchange {
        let redaction = self.redaction
        let requestBody = body.map { body in
            Fixture.Body(redacted(body.bytes, contentType: request.headerFields[.contentType]), isComplete: body.ended)
        }
        let recordedResponseBody = responseBody.map { body in
            Fixture.Body(redacted(body.bytes, contentType: response.headerFields[.contentType]), isComplete: body.isComplete)
        }
        return Fixture.Exchange(
            request: Fixture.Request(
                method: request.method.rawValue,
                url: secrets.scrub(redaction.redacted(url: url)),
                headers: redacted(request.headerFields),
                body: requestBody
            ),
            response: Fixture.Response(
                status: response.status.code,
                reason: response.status.reasonPhrase,
                headers: redacted(response.headerFields),
                body: recordedResponseBody
            )
        )
    }

    private func redacted(_ fields: HTTPFields) -> [Fixture.Field] {
        redaction.redacted(fields).map { Fixture.Field($0.name, secrets.scrub($0.value)) }
    }

    private func redacted(_ bytes: Data, contentType: String?) -> Data {
        let bytes = redaction.redacted(body: bytes, contentType: contentType)
        guard let text = String(validating: bytes, as: UTF8.self) else { return bytes }
        let scrubbed = secrets.scrub(text)
        return scrubbed == text ? bytes : Data(scrubbed.utf8)
    }
}
