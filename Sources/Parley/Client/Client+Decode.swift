import HTTPTypes
import OpenAPIRuntime

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Client {
    /// Validates the response (status, content type, validators) and decodes it with the endpoint's decoder.
    ///
    /// What only a failure or a validator needs is out of line (``unacceptable(_:response:body:acceptable:)``,
    /// ``validated(_:response:body:)``, ``decodingFailure(_:endpoint:response:storage:)``): it lives on the thread's
    /// stack or in a frame of its own, not in the async frame of every call.
    func decode<E: Endpoint>(
        _ endpoint: E,
        response: HTTPResponse,
        body: ResponseBody.Storage
    ) async throws(ParleyError) -> E.Response {
        try await validateHead(endpoint, response: response, body: body)
        var storage = body
        if !configuration.validators.isEmpty || !endpoint.validators.isEmpty {
            storage = try await validated(endpoint.validators, response: response, body: body)
        }
        let responseBody = ResponseBody(
            head: response,
            storage: storage,
            jsonDecoder: configuration.jsonDecoder,
            maxBytes: configuration.maxResponseBodySize
        )
        do {
            return try await endpoint.decoder.decode(responseBody)
        } catch {
            throw Self.decodingFailure(error, endpoint: endpoint.name, response: response, storage: storage)
        }
    }

    /// The body read whole and passed to the client's validators, then `endpointValidators`.
    @inline(never)
    private func validated(
        _ endpointValidators: [ResponseValidator],
        response: HTTPResponse,
        body: ResponseBody.Storage
    ) async throws(ParleyError) -> ResponseBody.Storage {
        let data = try await Self.attachingResponse(response) { () throws(ParleyError) in
            let limit = configuration.maxResponseBodySize
            return try await ResponseBody(head: response, storage: body, jsonDecoder: configuration.jsonDecoder, maxBytes: limit)
                .data()
        }
        for validator in configuration.validators + endpointValidators {
            do {
                try validator.validate(response, data)
            } catch {
                throw ParleyError.wrapping(error, as: .validation, "\(error)").attaching(response: response, body: data)
            }
        }
        return .buffered(data)
    }

    /// Whether `endpoint`'s response is read whole before it is decoded: its decoder's type says it reads the whole body
    /// (``ResponseDecoder/readsWholeBody``), or validators need it. The transport may then read it whole where it arrives.
    func readsWhole<E: Endpoint>(_ endpoint: E) -> Bool {
        E.Decoder.readsWholeBody || !configuration.validators.isEmpty || !endpoint.validators.isEmpty
    }

    /// Checks the status code and content type against the endpoint's (or the client's) acceptable ones; an
    /// unacceptable status fails with the first bytes of the body in the error.
    func validateHead<E: Endpoint>(
        _ endpoint: E,
        response: HTTPResponse,
        body: ResponseBody.Storage
    ) async throws(ParleyError) {
        let acceptable = endpoint.acceptableStatusCodes ?? configuration.acceptableStatusCodes
        guard acceptable.contains(response.status.code) else {
            throw await Self.unacceptable(endpoint.name, response: response, body: body, acceptable: acceptable)
        }
        if let types = endpoint.acceptableContentTypes ?? configuration.acceptableContentTypes {
            try Self.checkContentType(response, accepted: types)
        }
    }

    /// The error of a response whose status `endpoint` does not accept, with the first bytes of its body.
    @inline(never)
    private static func unacceptable(
        _ endpoint: String,
        response: HTTPResponse,
        body: ResponseBody.Storage,
        acceptable: StatusCodes
    ) async -> ParleyError {
        let excerpt: Data?
        switch body {
        case .streaming(let body): excerpt = await Self.excerpt(of: body)
        case .buffered(let data): excerpt = data
        case .failed(let data, _): excerpt = data
        }
        return ParleyError(
            .unacceptableStatus,
            "The server answered \(response.status.code) \(response.status.reasonPhrase), "
                + "but \(endpoint) accepts only \(acceptable)."
        )
        .attaching(response: response, body: excerpt)
    }

    /// The error of a body the endpoint's decoder could not decode, with its excerpt and where it failed.
    @inline(never)
    static func decodingFailure(
        _ error: any Error,
        endpoint: String,
        response: HTTPResponse,
        storage: ResponseBody.Storage
    ) -> ParleyError {
        if let error = error as? ParleyError { return error.attaching(response: response, onlyIfMissing: true) }
        var failure: ParleyError
        var bodyData: Data?
        var cause = error
        if let bodyError = error as? BodyDecodingError {
            bodyData = bodyError.body
            cause = bodyError.underlying
        }
        if case .buffered(let data) = storage, bodyData == nil { bodyData = data }
        if let decodingError = cause as? DecodingError {
            let (path, message) = bodyData.map { decodingError.explanation(body: $0) } ?? decodingError.explanation
            failure = ParleyError(.decoding, "The response of \(endpoint) could not be decoded: \(message).", underlying: cause)
            failure.codingPath = path
        } else if cause is EmptyBodyError {
            failure = ParleyError(.decoding, "The response of \(endpoint) could not be decoded: \(cause).", underlying: cause)
            bodyData = Data()
        } else {
            failure = ParleyError(.decoding, "The response of \(endpoint) could not be decoded: \(cause).", underlying: cause)
        }
        return failure.attaching(response: response, body: bodyData)
    }

    static func attachingResponse<T>(
        _ response: HTTPResponse,
        _ body: () async throws(ParleyError) -> T
    ) async throws(ParleyError) -> T {
        do {
            return try await body()
        } catch {
            throw error.attaching(response: response, onlyIfMissing: true)
        }
    }

    /// Reads at most ``ParleyError/excerptLimit`` bytes of a body for an error message.
    static func excerpt(of body: HTTPBody?) async -> Data? {
        guard let body else { return Data() }
        var data = Data()
        do {
            for try await chunk in body {
                data.append(contentsOf: chunk.prefix(ParleyError.excerptLimit - data.count))
                if data.count >= ParleyError.excerptLimit { break }
            }
        } catch {
            return data
        }
        return data
    }

    static func checkContentType(_ response: HTTPResponse, accepted: [String]) throws(ParleyError) {
        let header = response.headerFields[.contentType]
        let mediaType = header.map { MediaType($0) }
        if let mediaType, accepted.contains(where: { mediaType.matches(MediaType($0)) }) { return }
        throw ParleyError(
            .validation,
            header == nil
                ? "The response has no Content-Type, but one of \(accepted.joined(separator: ", ")) is required."
                : "The response's Content-Type \(header ?? "") is not one of \(accepted.joined(separator: ", "))."
        )
        .attaching(response: response)
    }
}

/// A decoder's failure together with the body it could not decode, so the error can show an excerpt.
struct BodyDecodingError: Error {
    let underlying: any Error
    let body: Data
}
