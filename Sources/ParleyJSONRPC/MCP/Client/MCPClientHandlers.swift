public import Parley

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// How an ``MCPClient`` answers what a server asks of it: sampling (a model's completion), elicitation (a question to
/// the user) and roots (the folders it may work in). One handler set for both eras: in the stateless era (2026-07-28)
/// the server asks by answering a call with `input_required` and the client sends the call again with the answers;
/// in the handshake era it sends requests of its own, which the client's channel answers.
///
/// ```swift
/// var handlers = MCPClientHandlers()
/// handlers.elicitation = { request in .accept(["name": "Ada"]) }
/// handlers.roots = { [MCPRoot(uri: "file:///srv/project", name: "project")] }
/// ```
///
/// A capability is advertised to the server only when its handler is set. Sampling and roots are deprecated in
/// 2026-07-28 (as is logging) and still supported.
public struct MCPClientHandlers: Sendable {
    /// Answers `sampling/createMessage`: asks a model, and returns its message.
    public var sampling: (@Sendable (MCPSamplingRequest) async throws -> MCPSamplingResult)?
    /// Whether the sampling handler can take the `tools` and `toolChoice` of a request (advertised as
    /// `sampling.tools`).
    public var samplingWithTools = false
    /// Answers `elicitation/create`, in form mode (fields to fill) or URL mode (a page to open).
    public var elicitation: (@Sendable (MCPElicitationRequest) async throws -> MCPElicitationResult)?
    /// The elicitation modes the handler takes (advertised as `elicitation.form` and `elicitation.url`).
    public var elicitationModes: Set<MCPElicitationMode> = [.form, .url]
    /// Answers `roots/list`.
    public var roots: (@Sendable () async throws -> [MCPRoot])?

    /// No handlers: the client advertises no capability, and a server's request is refused.
    public init() {}

    /// The client capabilities these handlers make: `sampling`, `elicitation` and `roots`, each only when set.
    public var capabilities: JSONValue {
        var capabilities: [String: JSONValue] = [:]
        if sampling != nil { capabilities["sampling"] = samplingWithTools ? ["tools": [:]] : [:] }
        if elicitation != nil {
            var modes: [String: JSONValue] = [:]
            for mode in elicitationModes { modes[mode.rawValue] = [:] }
            capabilities["elicitation"] = .object(modes)
        }
        if roots != nil { capabilities["roots"] = [:] }
        return .object(capabilities)
    }

    /// Answers one request of the server's, `method` with `params`: its result, or the error to send back.
    func answer(_ method: String, params: JSONValue?) async -> Result<JSONValue, JSONRPCError> {
        do {
            switch method {
            case "sampling/createMessage":
                guard let sampling else { return .failure(Self.unhandled(method, "sampling")) }
                return .success(try JSONValue(encoding: try await sampling(try Self.decode(params))))
            case "elicitation/create":
                guard let elicitation else { return .failure(Self.unhandled(method, "elicitation")) }
                let request: MCPElicitationRequest = try Self.decode(params)
                guard elicitationModes.contains(request.mode) else {
                    return .failure(
                        .invalidParams(data: .string("this client does not take elicitations of mode \(request.mode.rawValue)"))
                    )
                }
                return .success(try JSONValue(encoding: try await elicitation(request)))
            case "roots/list":
                guard let roots else { return .failure(Self.unhandled(method, "roots")) }
                return .success(try JSONValue(encoding: MCPListRootsResult(roots: try await roots())))
            case "ping":
                return .success([:])
            default:
                return .failure(.methodNotFound(data: .string("this client does not answer \(PrintableText.escaping(method))")))
            }
        } catch let error as JSONRPCError {
            return .failure(error)
        } catch {
            // A handler's own failure stays private: the server learns only that the request failed.
            return .failure(.internalError())
        }
    }

    /// A router answering the handshake era's requests with the handlers that are set (the channel's own router
    /// answers the others).
    var router: JSONRPCRouter {
        var router = JSONRPCRouter()
        var methods: [String] = []
        if sampling != nil { methods.append("sampling/createMessage") }
        if elicitation != nil { methods.append("elicitation/create") }
        if roots != nil { methods.append("roots/list") }
        for method in methods {
            router.register(method) { (params: JSONValue?) async throws -> JSONValue in
                try await answer(method, params: params).get()
            }
        }
        return router
    }

    private static func unhandled(_ method: String, _ capability: String) -> JSONRPCError {
        JSONRPCError.methodNotFound(data: .string("\(method): this client has no \(capability) handler"))
    }

    private static func decode<Value: Decodable>(_ params: JSONValue?) throws -> Value {
        do {
            return try JSONDecoder().decode(Value.self, from: JSONEncoder().encode(params ?? [:]))
        } catch {
            throw JSONRPCError.invalidParams(data: .string(JSONRPCCoding.describeDecodingFailure(error, under: "params")))
        }
    }
}
