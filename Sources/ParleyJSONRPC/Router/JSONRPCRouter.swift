package import Parley

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// The server side: typed handlers registered by method name, and ``handle(_:)`` turning one incoming
/// message (a call, a notification or a batch) into the answer the specification requires.
///
/// ```swift
/// var router = JSONRPCRouter()
/// router.register("sum") { (numbers: [Int]) in numbers.reduce(0, +) }
/// router.register("get_data") { () in ["hello", 5] as [JSONValue] }
/// let answer = await router.handle(message)    // nil: nothing to send back (only notifications)
/// ```
///
/// Parse errors, invalid requests, unknown methods and parameters that do not decode get the specification's
/// error objects. A handler answers with an error object by throwing a ``JSONRPCError``; any other error it
/// throws becomes `-32603 Internal error` without details (they may be private).
public struct JSONRPCRouter: Sendable {
    typealias Handler = @Sendable (_ params: JSONValue?, _ decoder: JSONDecoder) async throws -> Data

    private var handlers: [String: Handler] = [:]
    /// Encodes results.
    public var encoder: JSONEncoder
    /// Decodes parameters.
    public var decoder: JSONDecoder
    /// The peer's cancellation notifications this router honours when it serves a connection (`serve(input:output:framing:maxMessageSize:)`,
    /// or a channel's peer): the handler of the request named is cancelled (its task sees `Task.isCancelled`, and
    /// `Task.sleep` throws), and the request is answered as the cancellation says (LSP: `-32800`; MCP: no answer).
    /// Both by default; empty to ignore them. A handler registered for the same method still runs.
    public var cancellations: [JSONRPCCancellation] = [.lsp, .mcp]

    /// A router with no methods.
    public init(encoder: JSONEncoder = JSONEncoder(), decoder: JSONDecoder = JSONDecoder()) {
        self.encoder = encoder
        self.decoder = decoder
    }

    /// The registered method names.
    public var methods: [String] { handlers.keys.sorted() }

    /// Adds `other`'s handlers, replacing this router's of the same names.
    package mutating func add(_ other: JSONRPCRouter) {
        handlers.merge(other.handlers) { _, added in added }
    }

    /// Registers `name`, whose parameters (positional or named) decode as `Params`.
    public mutating func register<Params: Decodable & Sendable, Result: Encodable & Sendable>(
        _ name: String,
        _ handler: @escaping @Sendable (Params) async throws -> Result
    ) {
        let encoder = self.encoder
        handlers[name] = { params, decoder in
            let decoded: Params
            do {
                decoded = try decoder.decode(Params.self, from: JSONEncoder().encode(params ?? .null))
            } catch {
                let detail = JSONRPCCoding.describeDecodingFailure(error, under: "params")
                throw JSONRPCError.invalidParams(data: .string(detail))
            }
            return try encoder.encode(try await handler(decoded))
        }
    }

    /// Registers `name` as a method without parameters (`params` must be absent or empty).
    public mutating func register<Result: Encodable & Sendable>(
        _ name: String,
        _ handler: @escaping @Sendable () async throws -> Result
    ) {
        let encoder = self.encoder
        handlers[name] = { params, _ in
            switch params {
            case nil, .array([])?, .object([:])?: break
            default: throw JSONRPCError.invalidParams(data: .string("\(name) takes no parameters"))
            }
            return try encoder.encode(try await handler())
        }
    }

    /// Registers a typed method: the handler gets its `Params` and returns its `Result`.
    public mutating func register<Method: JSONRPCMethod>(
        _ method: Method.Type,
        _ handler: @escaping @Sendable (Method.Params) async throws -> Method.Result
    ) where Method.Params: Decodable, Method.Result: Encodable {
        register(Method.name, handler)
    }

    /// Takes in one message of a connection, in arrival order: a cancellation notification cancels the request it
    /// names at once; a request is reserved so that a later cancellation finds it. Returns the handling to run
    /// (concurrently with others), or `nil` when there is nothing more to do.
    package func intake(_ message: Data, tasks: JSONRPCRequestTasks) -> (@Sendable () async -> Data?)? {
        // Decoded once: the handling goes on from the value.
        guard let parsed = try? decoder.decode(JSONValue.self, from: message) else {
            return { @Sendable in Self.errorResponse(.parseError(), id: .null) }
        }
        return intake(parsed: parsed, tasks: tasks)
    }

    /// ``intake(_:tasks:)`` for a message already decoded.
    package func intake(parsed: JSONValue, tasks: JSONRPCRequestTasks) -> (@Sendable () async -> Data?)? {
        guard case .object(let members) = parsed, case .string(let method)? = members["method"] else {
            return { @Sendable in await handle(parsed: parsed) }
        }
        guard let id = members["id"] else {
            let cancelled = tasks.cancel(method: method, params: members["params"], using: cancellations)
            if cancelled, handlers[method] == nil { return nil }
            return { @Sendable in await handle(parsed: parsed) }
        }
        guard tasks.reserve(id) else { return { @Sendable in await handle(parsed: parsed) } }
        return { @Sendable in await tasks.run(id) { await handle(parsed: parsed) } }
    }

    /// Answers one incoming message: a response object, an array of them for a batch, or `nil` when nothing
    /// is to be sent back (a notification, or a batch of only notifications).
    public func handle(_ message: Data) async -> Data? {
        let parsed: JSONValue
        do {
            parsed = try decoder.decode(JSONValue.self, from: message)
        } catch {
            return Self.errorResponse(.parseError(), id: .null)
        }
        return await handle(parsed: parsed)
    }

    /// ``handle(_:)`` for a message already decoded.
    private func handle(parsed: JSONValue) async -> Data? {
        guard case .array(let elements) = parsed else {
            return await handleOne(parsed)
        }
        guard !elements.isEmpty else { return Self.errorResponse(.invalidRequest(), id: .null) }
        var answers: [Data] = []
        for element in elements {
            if let answer = await handleOne(element) { answers.append(answer) }
        }
        guard !answers.isEmpty else { return nil }
        var batch = Data("[".utf8)
        for (index, answer) in answers.enumerated() {
            if index > 0 { batch.append(UInt8(ascii: ",")) }
            batch.append(answer)
        }
        batch.append(UInt8(ascii: "]"))
        return batch
    }

    /// One request object: its response, or `nil` for a notification.
    private func handleOne(_ request: JSONValue) async -> Data? {
        guard case .object(let members) = request else { return Self.errorResponse(.invalidRequest(), id: .null) }
        let id = members["id"]
        let validID: JSONValue
        switch id {
        case nil: validID = .null
        case .null?, .string?, .int?: validID = id ?? .null
        case .double(let number)? where number.rounded() == number: validID = .double(number)
        default:
            return Self.errorResponse(.invalidRequest(data: .string("the id must be a string, an integer or null")), id: .null)
        }
        guard members["jsonrpc"] == .string("2.0") else {
            return Self.errorResponse(.invalidRequest(data: .string("\"jsonrpc\" must be \"2.0\"")), id: validID)
        }
        guard case .string(let method)? = members["method"] else {
            return Self.errorResponse(.invalidRequest(data: .string("\"method\" must be a string")), id: validID)
        }
        let params = members["params"]
        switch params {
        case nil, .array?, .object?: break
        default:
            return Self.errorResponse(.invalidRequest(data: .string("\"params\" must be an array or an object")), id: validID)
        }
        let isNotification = id == nil
        guard let handler = handlers[method] else {
            return isNotification ? nil : Self.errorResponse(.methodNotFound(), id: validID)
        }
        do {
            let result = try await handler(params, decoder)
            if isNotification { return nil }
            var answer = Data(#"{"jsonrpc":"2.0","result":"#.utf8)
            answer.append(result)
            answer.append(contentsOf: #","id":"#.utf8)
            answer.append(Self.encodeID(validID))
            answer.append(UInt8(ascii: "}"))
            return answer
        } catch let error as JSONRPCError {
            return isNotification ? nil : Self.errorResponse(error, id: validID)
        } catch {
            return isNotification ? nil : Self.errorResponse(.internalError(), id: validID)
        }
    }

    private static func encodeID(_ id: JSONValue) -> Data {
        (try? JSONEncoder().encode(id)) ?? Data("null".utf8)
    }

    /// `{"jsonrpc":"2.0","error":{…},"id":…}`.
    static func errorResponse(_ error: JSONRPCError, id: JSONValue) -> Data {
        struct ErrorResponse: Encodable {
            let jsonrpc = "2.0"
            let error: JSONRPCError
            let id: JSONValue
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(ErrorResponse(error: error, id: id)))
            ?? Data(#"{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":null}"#.utf8)
    }
}
