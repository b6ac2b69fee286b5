#if canImport(FoundationNetworking)
public import Foundation
public import FoundationNetworking
#else
public import Foundation
#endif
public import HTTPTypes
public import OpenAPIRuntime
public import Parley

/// A `ClientTransport` on Foundation's `URLSession` (FoundationNetworking on Linux), with an injectable session.
///
/// The session you pass is used as is and never invalidated (each request gets its own task delegate).
/// The response head is returned as soon as it arrives and the body streams chunk by chunk, so a size limit
/// stops the download early; cancelling the calling task or dropping the body cancels the data task.
/// Request bodies are collected before sending. Failures are reported as ``ParleyError``.
public struct URLSessionTransport: ShutdownTransport {
    /// The session requests run on.
    public let session: URLSession
    /// Routes task events when this transport owns ``session``; `nil` for an injected session.
    let router: SessionRouter?

    /// A transport on a session you own (such as `URLSession.shared`). Parley never invalidates it.
    ///
    /// On Linux, FoundationNetworking delivers a response to an injected session only when it is complete,
    /// so the body is buffered by URLSession before Parley sees it; use ``init(configuration:)`` to stream.
    public init(session: URLSession) {
        self.session = session
        self.router = nil
    }

    /// A transport that creates its own session from `configuration` and streams every response.
    /// ``shutdown()`` (or `Client.shutdown()`) invalidates the session once its tasks finished.
    public init(configuration: URLSessionConfiguration = .default) {
        let router = SessionRouter()
        self.session = URLSession(configuration: configuration, delegate: router, delegateQueue: nil)
        self.router = router
    }

    /// Invalidates the session if this transport created it; an injected session is left alone.
    public func shutdown() async throws {
        if router != nil { session.finishTasksAndInvalidate() }
    }

    /// Sends the request on a data task.
    public func send(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var urlRequest = try Self.urlRequest(for: request, baseURL: baseURL)
        if let body {
            do {
                urlRequest.httpBody = try await Data(collecting: body, upTo: .max)
            } catch {
                throw ParleyError.wrapping(error, as: .transport, "The request body could not be read: \(error).")
            }
        }
        try Task.checkCancellation()
        guard let router else { return try await sendBuffered(urlRequest, method: request.method) }
        let delegate = StreamingTaskDelegate()
        let task = session.dataTask(with: urlRequest)
        router.register(delegate, for: task)
        let urlResponse = try await delegate.head(of: task)
        guard let http = urlResponse as? HTTPURLResponse else {
            task.cancel()
            throw ParleyError(.transport, "The response is not an HTTP response (\(type(of: urlResponse))).")
        }
        let response = Self.response(http)
        if request.method == .head {
            task.cancel()
            return (response, nil)
        }
        // URLSession hands over decoded bytes: with a Content-Encoding, the declared length is not theirs.
        let encoded = response.headerFields[.contentEncoding] != nil
        let length: HTTPBody.Length =
            http.expectedContentLength >= 0 && !encoded ? .known(http.expectedContentLength) : .unknown
        return (response, HTTPBody(delegate.body, length: length, iterationBehavior: .single))
    }

    static func response(_ http: HTTPURLResponse) -> HTTPResponse {
        var response = HTTPResponse(
            status: HTTPResponse.Status(code: http.statusCode, reasonPhrase: Self.reasonPhrase(http.statusCode))
        )
        for (key, value) in http.allHeaderFields {
            guard let key = key as? String, let name = HTTPField.Name(key), let value = value as? String else { continue }
            response.headerFields.append(HTTPField(name: name, value: value))
        }
        return response
    }

    /// HTTPURLResponse's phrase with the first letter of each word capitalised ("Not Found").
    static func reasonPhrase(_ code: Int) -> String {
        HTTPURLResponse.localizedString(forStatusCode: code)
            .split(separator: " ").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: " ")
    }

    static func urlRequest(for request: HTTPRequest, baseURL: URL) throws -> URLRequest {
        let text = request.absoluteURLString(baseURL: baseURL)
        guard let url = URL(string: text) else {
            throw ParleyError(.invalidRequest, "URLSession cannot represent the URL \(String(reflecting: text)).")
        }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method.rawValue
        for field in request.headerFields {
            urlRequest.addValue(field.value, forHTTPHeaderField: field.name.rawName)
        }
        return urlRequest
    }
}

