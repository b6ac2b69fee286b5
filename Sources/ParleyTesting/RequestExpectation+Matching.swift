import HTTPTypes
import Parley

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension RequestExpectation {
    /// Whether `request` meets every part of this expectation.
    public func matches(_ request: RecordedRequest) -> Bool {
        differences(from: request).isEmpty
    }

    /// Whether `request` has this expectation's method and path (so that a difference is worth showing as one).
    func hasSameTarget(as request: RecordedRequest) -> Bool {
        request.method == method && Self.segments(request.path) == Self.segments(path)
    }

    /// How `request` differs from this expectation, one line per difference (empty when it matches).
    public func differences(from request: RecordedRequest) -> [String] {
        var differences: [String] = []
        if request.method != method {
            differences.append("method: expected \(method.rawValue), received \(request.method.rawValue)")
        }
        if Self.segments(request.path) != Self.segments(path) {
            differences.append("path: expected \(path), received \(request.path)")
        }
        if let query {
            let sent = request.queryItems.map { QueryItem($0.name, $0.value) }
            if !ReplayRequest.queryMatches(recorded: query, sent: sent, ordered: false) {
                differences.append("query: expected \(Self.text(query)), received \(Self.text(sent))")
            }
        }
        for (name, check) in headers {
            let values = HTTPField.Name(name).map { request.head.headerFields[values: $0] } ?? []
            switch check {
            case .equals(let value) where !values.contains(value):
                let received = values.isEmpty ? "none" : values.map { String(reflecting: $0) }.joined(separator: ", ")
                differences.append("header \(name): expected \(String(reflecting: value)), received \(received)")
            case .present where values.isEmpty:
                differences.append("header \(name): expected present, received none")
            case .absent where !values.isEmpty:
                differences.append("header \(name): expected absent, received \(String(reflecting: values[0]))")
            default:
                break
            }
        }
        if let body { differences += Self.differences(body, request.body) }
        if let status, request.response?.status.code != status {
            let received = request.response.map { "\($0.status.code)" } ?? "no response"
            differences.append("status: expected \(status), received \(received)")
        }
        return differences
    }

    /// `GET /users/1?page=2, header Authorization: "Bearer t1", JSON body {"a":1}, answered 200`.
    public var description: String {
        var parts = ["\(method.rawValue) \(path)" + (query.map { $0.isEmpty ? "" : "?" + Query($0).encoded } ?? " (any query)")]
        for (name, check) in headers {
            switch check {
            case .equals(let value): parts.append("header \(name): \(String(reflecting: value))")
            case .present: parts.append("header \(name) present")
            case .absent: parts.append("no header \(name)")
            }
        }
        switch body {
        case .json(let value): parts.append("JSON body \(value)")
        case .text(let text): parts.append("body \(String(reflecting: text))")
        case .bytes(let bytes): parts.append("body of \(bytes.count) bytes")
        case .unencodable(let reason): parts.append(reason)
        case nil: break
        }
        if let status { parts.append("answered \(status)") }
        return parts.joined(separator: ", ")
    }

    private static func differences(_ check: BodyCheck, _ sent: Data) -> [String] {
        switch check {
        case .json(let expected):
            guard let received = try? JSONDecoder().decode(JSONValue.self, from: sent) else {
                return ["body: expected JSON \(expected), received \(ReplayRequest.excerpt(sent)) (not JSON)"]
            }
            return JSONDifference.between(expected, received, at: "body")
        case .text(let text):
            return Data(text.utf8) == sent
                ? [] : ["body: expected \(String(reflecting: text)), received \(ReplayRequest.excerpt(sent))"]
        case .bytes(let bytes):
            return bytes == sent
                ? [] : ["body: expected \(ReplayRequest.excerpt(bytes)), received \(ReplayRequest.excerpt(sent))"]
        case .unencodable(let reason):
            return ["body: \(reason)"]
        }
    }

    private static func segments(_ path: String) -> [String] {
        path.split(separator: "/", omittingEmptySubsequences: false).map { Path.decode(segment: $0) ?? String($0) }
    }

    private static func text(_ items: [QueryItem]) -> String {
        items.isEmpty ? "none" : Query(items).encoded
    }
}
