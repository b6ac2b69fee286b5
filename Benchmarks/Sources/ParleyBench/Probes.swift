// swift-format-ignore-file: NeverForceUnwrap

// A benchmark harness: a missing value is a broken setup, and stopping there is what it should do.
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Parley

/// Steps between raw AsyncHTTPClient and Parley's transport, one at a time, to locate a cost with `--profile`.
enum Probes {
    static func getDistantDeadline(_ client: HTTPClient, url: String) async throws -> Item {
        let response = try await client.execute(HTTPClientRequest(url: url), deadline: .distantFuture)
        let body = try await response.body.collect(upTo: 32 * 1024 * 1024)
        return try JSONDecoder().decode(Item.self, from: Data(body.readableBytesView))
    }

    static func getArraySlices(_ client: HTTPClient, url: String) async throws -> Item {
        let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
        var data = Data()
        for try await chunk in response.body.map({ ArraySlice($0.readableBytesView) }) { data.append(contentsOf: chunk) }
        return try JSONDecoder().decode(Item.self, from: data)
    }

    /// AsyncHTTPClient's delegate API with its own `ResponseAccumulator`: what the buffered fast path is built on,
    /// with none of Parley's work, for the ceiling of that API against the async one.
    static func getDelegate(_ client: HTTPClient, url: String) async throws -> Item {
        let request = try HTTPClient.Request(url: url)
        let task = client.execute(request: request, delegate: ResponseAccumulator(request: request), eventLoop: .indifferent)
        let response = try await task.futureResult.get()
        return try JSONDecoder().decode(Item.self, from: Data(response.body!.readableBytesView))
    }

    /// The same for a POST of a JSON body (`.byteBuffer`, which the delegate API writes after the head).
    static func postDelegate(_ client: HTTPClient, url: String) async throws -> Item {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        let body = ByteBuffer(bytes: try JSONEncoder().encode(Order.sample))
        let request = try HTTPClient.Request(url: url, method: .POST, headers: headers, body: .byteBuffer(body))
        let task = client.execute(request: request, delegate: ResponseAccumulator(request: request), eventLoop: .indifferent)
        let response = try await task.futureResult.get()
        return try JSONDecoder().decode(Item.self, from: Data(response.body!.readableBytesView))
    }

    static func getHTTPBody(_ client: HTTPClient, url: String) async throws -> Item {
        let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
        let body = HTTPBody(response.body.map { ArraySlice($0.readableBytesView) }, length: .unknown, iterationBehavior: .single)
        var data = Data()
        for try await chunk in body { data.append(contentsOf: chunk) }
        return try JSONDecoder().decode(Item.self, from: data)
    }
}

extension Probes {
    /// The transport's steps, inline: request conversion, execute, header conversion, HTTPBody, collect.
    static func getInlineTransport(
        _ client: HTTPClient,
        request: HTTPRequest,
        wrapBody: Bool,
        convertHeaders: Bool
    ) async throws -> Item {
        var outgoing = HTTPClientRequest(url: request.scheme! + "://" + request.authority! + request.path!)
        outgoing.method = HTTPMethod(rawValue: request.method.rawValue)
        for field in request.headerFields {
            outgoing.headers.add(name: field.name.rawName, value: field.value)
        }
        let incoming = try await client.execute(outgoing, deadline: .distantFuture)
        if convertHeaders {
            var fields = HTTPFields()
            fields.reserveCapacity(incoming.headers.count)
            for header in incoming.headers {
                guard let name = HTTPField.Name(header.name) else { continue }
                fields.append(HTTPField(name: name, value: header.value))
            }
            _ = HTTPResponse(status: .init(code: Int(incoming.status.code)), headerFields: fields)
        }
        var data = Data()
        if wrapBody {
            let body = HTTPBody(
                incoming.body.map { ArraySlice($0.readableBytesView) },
                length: .unknown,
                iterationBehavior: .single
            )
            for try await chunk in body { data.append(contentsOf: chunk) }
        } else {
            for try await chunk in incoming.body { data.append(contentsOf: chunk.readableBytesView) }
        }
        return try JSONDecoder().decode(Item.self, from: data)
    }
}

/// A transport that answers every request at once with a fixed object: what is left is Parley's own work.
struct CannedTransport: ClientTransport {
    static let object = Data(
        #"{"id":42,"name":"Parley benchmark item","email":"bench@example.com","active":true,"score":98.5,"tags":["alpha","beta","gamma"],"createdAt":"2026-11-23T08:00:00Z","note":"a fixed object of about two hundred bytes"}"#
            .utf8
    )

    func send(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let head = HTTPResponse(
            status: .ok,
            headerFields: [.contentType: "application/json", .contentLength: String(Self.object.count)]
        )
        return (head, HTTPBody(Self.object))
    }
}

extension Probes {
    /// AsyncHTTPClientTransport.send, copied verbatim into this module.
    static func transportCopy(_ client: HTTPClient, _ request: HTTPRequest, eager: Bool) async throws -> (HTTPResponse, HTTPBody?)
    {
        var outgoing = HTTPClientRequest(url: request.scheme! + "://" + request.authority! + request.path!)
        outgoing.method = HTTPMethod(rawValue: request.method.rawValue)
        outgoing.headers.reserveCapacity(request.headerFields.count)
        for field in request.headerFields {
            outgoing.headers.add(name: field.name.rawName, value: field.value)
        }
        let incoming = try await client.execute(outgoing, deadline: .distantFuture)
        var fields = HTTPFields()
        fields.reserveCapacity(incoming.headers.count)
        for header in incoming.headers {
            guard let name = HTTPField.Name(header.name) else { continue }
            fields.append(HTTPField(name: name, value: header.value))
        }
        let response = HTTPResponse(
            status: HTTPResponse.Status(code: Int(incoming.status.code), reasonPhrase: incoming.status.reasonPhrase),
            headerFields: fields
        )
        let declared = fields[.contentLength].flatMap { Int64($0) }
        if eager, let declared, declared <= 65536 {
            let whole = try await incoming.body.collect(upTo: Int(declared))
            return (response, HTTPBody(ArraySlice(whole.readableBytesView)))
        }
        let length: HTTPBody.Length = declared.map { .known($0) } ?? .unknown
        return (
            response, HTTPBody(incoming.body.map { ArraySlice($0.readableBytesView) }, length: length, iterationBehavior: .single)
        )
    }
}
