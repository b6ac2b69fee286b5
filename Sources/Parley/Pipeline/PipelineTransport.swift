package import HTTPTypes
package import OpenAPIRuntime

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// What the pipeline's transport stage (stage 9) hands every request to: the one seam between Parley's stages and a
/// transport. A plain `ClientTransport` is adapted to it once, when the client is made (``adapted(_:)``); Parley's
/// AsyncHTTPClient transport speaks it itself.
///
/// It is handed the request, its body and the call's scope, and must:
/// - bound the wait for the response head by ``CallScope/headTimeout``, on the one clock of ``HeadDeadline`` (from the
///   moment it is handed the request, or, for a body it does not send with the head, from when it has taken the body's
///   last byte), failing with ``HeadDeadline/expired(_:)``;
/// - hand back the body as it has it: streamed, or, when ``CallScope/whole`` is set (the call reads the body whole
///   anyway), read whole within those limits where its bytes arrive.
///
/// A buffered call and a streamed call pass the same stages; they differ only in the storage they carry up.
package protocol PipelineTransport: Sendable {
    /// Sends `request` and returns the response head with its body.
    ///
    /// Fails as `ClientTransport.send` does, with ``HeadDeadline/expired(_:)`` when the head is late, and with
    /// ``WholeResponseLimits/bodyExpired(_:received:)`` when a body read whole is. A body read whole that is longer
    /// than ``WholeResponseLimits/maxBytes`` does not fail here: it comes back as
    /// ``ResponseBody/Storage/failed(excerpt:error:)``, so that an unacceptable status still fails as one, with its
    /// excerpt.
    func send(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        scope: CallScope
    ) async throws -> (HTTPResponse, ResponseBody.Storage)
}

/// `transport` as the pipeline's transport: itself when it speaks ``PipelineTransport``, else adapted
/// (``StreamingTransport``).
func adapted(_ transport: any ClientTransport) -> any PipelineTransport {
    (transport as? any PipelineTransport) ?? StreamingTransport(base: transport)
}

/// A plain `ClientTransport` as a ``PipelineTransport``: the head bounded by a ``HeadDeadline``, the body streamed, or
/// read whole within ``CallScope/whole`` when the call reads it whole anyway (``WholeResponseLimits/read(_:head:)``).
struct StreamingTransport: PipelineTransport {
    let base: any ClientTransport

    func send(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        scope: CallScope
    ) async throws -> (HTTPResponse, ResponseBody.Storage) {
        let operationID = scope.operationID
        let response: HTTPResponse
        let responseBody: HTTPBody?
        if let limit = scope.headTimeout {
            let head = HeadDeadline(limit: limit)
            let (body, sent) = head.watching(body)
            (response, responseBody) = try await head.send(startingAt: sent) {
                try await base.send(request, body: body, baseURL: baseURL, operationID: operationID)
            }
        } else {
            (response, responseBody) = try await base.send(request, body: body, baseURL: baseURL, operationID: operationID)
        }
        guard let whole = scope.whole else { return (response, .streaming(responseBody)) }
        return (response, try await whole.read(responseBody, head: response))
    }
}

/// What bounds a response read whole by a ``PipelineTransport`` (``CallScope/whole``).
package struct WholeResponseLimits: Sendable {
    /// The wait for the whole body, from its head (``Client/Configuration/responseBodyTimeout``).
    package var body: Duration?
    /// The most body bytes kept (``Client/Configuration/maxResponseBodySize``).
    package var maxBytes: Int
    /// The status codes the call accepts: a body over ``maxBytes`` stops being read at once under one of them (the
    /// call fails with ``ParleyError/Kind/bodyTooLarge``), and after its first ``ParleyError/excerptLimit`` bytes
    /// under any other (the call fails with ``ParleyError/Kind/unacceptableStatus`` and that excerpt).
    package var acceptable: StatusCodes

    package init(body: Duration?, maxBytes: Int, acceptable: StatusCodes) {
        self.body = body
        self.maxBytes = maxBytes
        self.acceptable = acceptable
    }

    /// The error of a body that did not arrive in full within `limit` of its head (``body``), `received` bytes in.
    package static func bodyExpired(_ limit: Duration, received: Int) -> ParleyError {
        ParleyError(
            .timeout,
            "The response body did not arrive in full within \(limit) of its head "
                + "(Client.Configuration.responseBodyTimeout): \(received) bytes came, too slowly. Raise the "
                + "limit, or set a timeout on the endpoint or the client, if the server is legitimately this slow."
        )
    }

    /// The storage of a body read whole that was longer than ``maxBytes``: its first bytes (at most
    /// ``ParleyError/excerptLimit``; none when the status is an acceptable one), and the length it declared if it did.
    package func tooLarge(excerpt: Data, declared: Int64?) -> ResponseBody.Storage {
        .failed(excerpt: excerpt, error: ResponseBody.tooLarge(maxBytes, declared: declared))
    }
}

extension WholeResponseLimits {
    /// `body` read whole within these limits, the way every body read whole is read (a plain transport's, adapted
    /// by ``StreamingTransport``; ``ResponseBody/data()``'s): the body's clock (``body``) starts now, at its head, and is
    /// read as each chunk arrives; past ``maxBytes`` (or with a declared length above it) reading stops, at once
    /// under an acceptable status, after the first ``ParleyError/excerptLimit`` bytes (the error's excerpt) under any
    /// other. A body in one chunk is copied once.
    ///
    /// A body that fails after the head comes back as ``ResponseBody/Storage/failed(excerpt:error:)`` (too large,
    /// too slow, broken off), as a streamed body would fail when read; only cancellation is thrown.
    package func read(_ body: HTTPBody?, head: HTTPResponse) async throws -> ResponseBody.Storage {
        let acceptable = acceptable.contains(head.status.code)
        // Set once the body is known to be over the limit: the length it declared, if it did.
        var overLimit: Int64??
        var capacity = 0
        if case .known(let length)? = body?.length {
            if length > maxBytes {
                if acceptable { return tooLarge(excerpt: Data(), declared: length) }
                overLimit = .some(length)
            } else {
                capacity = Int(max(0, length))
            }
        }
        guard let body else { return overLimit.map { tooLarge(excerpt: Data(), declared: $0) } ?? .buffered(Data()) }
        let deadline = self.body.map { ContinuousClock.now + $0 }
        // The first chunk, copied into `data` only when a second one comes.
        var first: ArraySlice<UInt8>?
        var data = Data()
        var received = 0
        var excerpt: Data { Data((first.map(Self.copy) ?? data).prefix(ParleyError.excerptLimit)) }
        var chunks = body.makeAsyncIterator()
        while true {
            let chunk: ArraySlice<UInt8>
            do {
                guard let next = try await chunks.next() else { break }
                chunk = next
            } catch {
                if Task.isCancelled { throw error }
                let failure = ParleyError.wrapping(error, as: .transport, "The response body could not be read to its end.")
                return .failed(excerpt: excerpt, error: failure)
            }
            received += chunk.count
            if received == chunk.count {
                first = chunk
            } else {
                if let kept = first.take() {
                    data.reserveCapacity(max(capacity, kept.count + chunk.count))
                    data.append(contentsOf: kept)
                }
                data.append(contentsOf: chunk)
            }
            if received > maxBytes, overLimit == nil { overLimit = .some(nil) }
            // Over the limit, with enough for an unacceptable status's excerpt (or none needed): no need for the rest.
            if let overLimit, acceptable || received >= ParleyError.excerptLimit {
                return tooLarge(excerpt: acceptable ? Data() : excerpt, declared: overLimit)
            }
            if let deadline, let limit = self.body, ContinuousClock.now > deadline {
                return .failed(excerpt: excerpt, error: Self.bodyExpired(limit, received: received))
            }
        }
        if let overLimit { return tooLarge(excerpt: excerpt, declared: overLimit) }
        return .buffered(first.map(Self.copy) ?? data)
    }

    /// `bytes` as `Data`, copied once from their memory (`Data.init` from a sequence allocates more).
    private static func copy(_ bytes: ArraySlice<UInt8>) -> Data {
        bytes.withUnsafeBytes { Data($0) }
    }
}
