import Parley

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Encoding messages and matching answers to the calls that wait for them.
@usableFromInline
enum JSONRPCCoding {
    /// One call or notification of a message, before it has an id.
    @usableFromInline
    struct Entry: Sendable {
        @usableFromInline let name: String
        @usableFromInline let envelope: @Sendable (JSONRPCID?) -> AnyRequestEnvelope
        /// `nil` for a notification.
        @usableFromInline let decode: ResultDecoders.Decode?
        /// Whether the call may be sent again (``JSONRPCMethod/isRepeatable``).
        @usableFromInline let isRepeatable: Bool

        @inlinable
        init(
            name: String,
            envelope: @escaping @Sendable (JSONRPCID?) -> AnyRequestEnvelope,
            decode: ResultDecoders.Decode?,
            isRepeatable: Bool = false
        ) {
            self.name = name
            self.envelope = envelope
            self.decode = decode
            self.isRepeatable = isRepeatable
        }

        @inlinable
        static func call<Method: JSONRPCMethod>(_ method: Method) -> Entry {
            Entry(
                name: method.methodName,
                envelope: { id in AnyRequestEnvelope(method, id: id) },
                decode: ResultDecoders.decoding(Method.Result.self),
                isRepeatable: method.isRepeatable
            )
        }

        @inlinable
        static func notification<Method: JSONRPCMethod>(_ method: Method) -> Entry {
            Entry(name: method.methodName, envelope: { _ in AnyRequestEnvelope(method, id: nil) }, decode: nil)
        }
    }

    /// A decoder with `base`'s settings that also carries the result decoders of one message.
    static func decoder(like base: JSONDecoder, decoders: ResultDecoders) -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = base.dateDecodingStrategy
        decoder.dataDecodingStrategy = base.dataDecodingStrategy
        decoder.nonConformingFloatDecodingStrategy = base.nonConformingFloatDecodingStrategy
        decoder.keyDecodingStrategy = base.keyDecodingStrategy
        decoder.allowsJSON5 = base.allowsJSON5
        var userInfo = base.userInfo
        userInfo[ResultDecoders.userInfoKey] = decoders
        decoder.userInfo = userInfo
        return decoder
    }

    static func encode(_ value: some Encodable, with encoder: JSONEncoder, what: String) throws(ParleyError) -> Data {
        do {
            return try encoder.encode(value)
        } catch {
            throw ParleyError(
                .encoding,
                "The JSON-RPC \(what) could not be encoded: \(error). Nothing was sent.",
                underlying: error
            )
        }
    }

    /// Parses an answer; only a body that is not JSON at all throws.
    static func parse(_ reply: JSONRPCReply, decoders: ResultDecoders, like base: JSONDecoder) throws(ParleyError) -> Reply {
        do {
            return try decoder(like: base, decoders: decoders).decode(Reply.self, from: reply.data)
        } catch {
            let decoding = error as? DecodingError
            let text =
                if let decoding, decoding.isNestedTooDeep(body: reply.data) {
                    "The JSON-RPC answer could not be read: \(decoding.explanation(body: reply.data).message)."
                } else {
                    "The JSON-RPC answer is not JSON (\(decoding?.explanation.message ?? "\(error)"))."
                }
            var failure = ParleyError(.jsonRPCProtocol, text, underlying: error)
            failure = failure.attaching(response: reply.head, body: reply.data)
            throw failure
        }
    }

    /// Whether `data` reads as a JSON-RPC response holding an error object (for HTTP error statuses).
    static func looksLikeErrorResponse(_ data: Data) -> Bool {
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: data) else { return false }
        func isErrorResponse(_ value: JSONValue) -> Bool {
            if case .object(let members) = value, members["jsonrpc"] == .string("2.0"), members["error"] != nil { return true }
            return false
        }
        if case .array(let elements) = value { return !elements.isEmpty && elements.allSatisfy(isErrorResponse) }
        return isErrorResponse(value)
    }

    /// The result (or failure) of one element, in words that name the method and id.
    static func outcome(
        _ element: ResponseElement,
        name: String,
        id: JSONRPCID,
        reply: JSONRPCReply
    ) -> Result<any Sendable, ParleyError> {
        var failure: ParleyError
        switch element.outcome {
        case .result(let value):
            return .success(value)
        case .error(let error):
            failure = ParleyError(.jsonRPCError, "The JSON-RPC call \(name) (id \(id)) failed: \(error).", underlying: error)
        case .undecodable(let error):
            let (path, message) = error.explanation
            failure = ParleyError(
                .decoding,
                "The result of the JSON-RPC call \(name) (id \(id)) could not be decoded: \(message).",
                underlying: error
            )
            failure.codingPath = path  // starts at the response object: "result.items[3]"
        case .violation(let text):
            failure = ParleyError(.jsonRPCProtocol, "The answer to the JSON-RPC call \(name) (id \(id)) \(text).")
        case .unclaimedResult:
            failure = ParleyError(.jsonRPCProtocol, "The answer to the JSON-RPC call \(name) (id \(id)) was not read.")
        }
        failure = failure.attaching(response: reply.head, body: reply.data)
        return .failure(failure)
    }

    /// What an answer without a matching id says, for error messages.
    static func stray(_ element: ResponseElement, reply: JSONRPCReply) -> ParleyError {
        var failure: ParleyError
        switch (element.id, element.outcome) {
        case (nil, .error(let error)):
            failure = ParleyError(
                .jsonRPCError,
                "The server could not read (part of) the message and answered with an error whose id is null: \(error).",
                underlying: error
            )
        case (nil, .violation(let text)):
            failure = ParleyError(.jsonRPCProtocol, "The server sent an answer that \(text).")
        case (nil, _):
            failure = ParleyError(.jsonRPCProtocol, "The server sent an answer with a null or missing id.")
        case (let id?, _):
            failure = ParleyError(.jsonRPCProtocol, "The server answered the id \(id), which no call of this message has.")
        }
        failure = failure.attaching(response: reply.head, body: reply.data)
        return failure
    }

    /// How many answers that match no call a batch keeps (``JSONRPCBatch/Results/unmatched``); the others are
    /// only counted, so a server answering with 400 000 stray elements costs no more than 16.
    static let unmatchedKept = 16

    /// How many answers that match no call an unanswered call's message names; it gives the count of the others.
    static let unmatchedNamed = 3

    /// Matches a batch answer to the calls by id, whatever order the server answered in. Of the answers that
    /// match no call, the first ``unmatchedKept`` are kept and all are counted.
    static func match(
        _ parsed: Reply,
        calls: [(id: JSONRPCID, name: String)],
        reply: JSONRPCReply
    ) -> (outcomes: [Result<any Sendable, ParleyError>], unmatched: [ParleyError], unmatchedCount: Int) {
        let located = locate(parsed, calls: calls, reply: reply)
        let outcomes = calls.indices.map { index -> Result<any Sendable, ParleyError> in
            located.positions[index].flatMap { position in
                outcome(located.elements[position], name: calls[index].name, id: calls[index].id, reply: reply)
            }
        }
        return (outcomes, located.unmatched, located.unmatchedCount)
    }

    /// Finds each call's answer in a batch answer by id: the position of its one element in `elements`, or why it
    /// has none (unanswered, answered more than once, or the whole batch answered with one error object). The one
    /// check of a batch answer's ids: ``match(_:calls:reply:)`` and the batching channel use it. Of the answers
    /// that match no call, the first ``unmatchedKept`` are kept and all are counted.
    static func locate(
        _ parsed: Reply,
        calls: [(id: JSONRPCID, name: String)],
        reply: JSONRPCReply
    ) -> (elements: [ResponseElement], positions: [Result<Int, ParleyError>], unmatched: [ParleyError], unmatchedCount: Int) {
        let elements: [ResponseElement]
        switch parsed {
        case .batch(let array):
            elements = array
        case .single(let element):
            if element.id == nil, case .error(let error) = element.outcome {
                // The specification's answer to a batch the server could not parse as one.
                var failure = ParleyError(
                    .jsonRPCError,
                    "The server answered the whole batch with one error object instead of an array, so it could not "
                        + "read the batch: \(error).",
                    underlying: error
                )
                failure = failure.attaching(response: reply.head, body: reply.data)
                return ([element], Array(repeating: .failure(failure), count: calls.count), [failure], 1)
            }
            elements = [element]
        }
        // The index of each call by id, then the index of its (first) answer and how many answers it got.
        var callIndex: [JSONRPCID: Int] = [:]
        callIndex.reserveCapacity(calls.count)
        for (index, call) in calls.enumerated() { callIndex[call.id] = index }
        var answerIndex = [Int](repeating: -1, count: calls.count)
        var answerCount = [Int](repeating: 0, count: calls.count)
        var unmatched: [ParleyError] = []
        var unmatchedCount = 0
        for (position, element) in elements.enumerated() {
            if let id = element.id, let index = callIndex[id] {
                if answerCount[index] == 0 { answerIndex[index] = position }
                answerCount[index] += 1
            } else {
                unmatchedCount += 1
                if unmatched.count < unmatchedKept { unmatched.append(stray(element, reply: reply)) }
            }
        }
        let strays = unmatchedSummary(unmatched, count: unmatchedCount)
        let positions = calls.indices.map { index -> Result<Int, ParleyError> in
            let call = calls[index]
            switch answerCount[index] {
            case 1:
                return .success(answerIndex[index])
            case 0:
                var text = "The server's batch answer has no answer for the call \(call.name) (id \(call.id))."
                if let strays { text += " " + strays }
                var failure = ParleyError(.jsonRPCProtocol, text)
                failure = failure.attaching(response: reply.head, body: reply.data)
                return .failure(failure)
            default:
                var failure = ParleyError(
                    .jsonRPCProtocol,
                    "The server's batch answer answers the call \(call.name) (id \(call.id)) \(answerCount[index]) times; "
                        + "each id must be answered once."
                )
                failure = failure.attaching(response: reply.head, body: reply.data)
                return .failure(failure)
            }
        }
        return (elements, positions, unmatched, unmatchedCount)
    }

    /// "It also held 3 answers that match no call: …", naming at most ``unmatchedNamed`` of `count` and
    /// counting the rest; `nil` when there are none.
    static func unmatchedSummary(_ unmatched: [ParleyError], count: Int) -> String? {
        guard count > 0 else { return nil }
        let named = unmatched.prefix(unmatchedNamed).map { message in
            var text = message.message
            while text.last == "." { text.removeLast() }
            return text
        }
        var text =
            count == 1 ? "It also held an answer that matches no call: " : "It also held \(count) answers that match no call: "
        text += named.joined(separator: "; ")
        if count > named.count { text += "; and \(count - named.count) more" }
        return text + "."
    }

    /// `"params.a[1]: expected Int, found a string"`: where under `place` a value failed to decode, and why.
    static func describeDecodingFailure(_ error: any Error, under place: String) -> String {
        guard let decoding = error as? DecodingError else { return "\(error)" }
        let (path, message) = decoding.explanation
        return "\(path.isEmpty ? place : place + "." + path): \(message)"
    }
}
