public import Parley

extension RequestExpectation {
    /// Fails with ``/Parley/ParleyError/Kind/validation`` unless `received` are exactly the `expected` requests, in order.
    ///
    /// The message lines the two lists up (the longest run of matching requests kept in step) and marks each
    /// request `ok`, `differs` (with one line per difference), `extra` (received, not expected) or `missing`
    /// (expected, not received).
    public static func verify(_ expected: [RequestExpectation], against received: [RecordedRequest]) throws(ParleyError) {
        let rows = align(expected, received)
        guard rows.contains(where: { if case .ok = $0 { false } else { true } }) else { return }
        var lines = [
            "The requests the transport received differ from the expected ones "
                + "(\(received.count) received, \(expected.count) expected):"
        ]
        for row in rows {
            switch row {
            case .ok(let index):
                lines.append("  #\(index) ok       \(received[index])")
            case .differs(let expectation, let index):
                lines.append("  #\(index) differs  expected \(expected[expectation])")
                lines.append("              received \(received[index])")
                lines += expected[expectation].differences(from: received[index]).map { "              - \($0)" }
            case .extra(let index):
                lines.append("  #\(index) extra    received \(received[index]) (not expected)")
            case .missing(let expectation):
                lines.append("  -- missing  expected \(expected[expectation]) (not received)")
            }
        }
        throw ParleyError(.validation, multilineMessage: lines.joined(separator: "\n"))
    }

    private enum Row {
        case ok(Int), differs(Int, Int), extra(Int), missing(Int)
    }

    /// The longest common run of matches, with the unmatched expectations and requests between two matches paired
    /// up in order as differences.
    private static func align(_ expected: [RequestExpectation], _ received: [RecordedRequest]) -> [Row] {
        let matches = expected.map { expectation in received.map(expectation.matches) }
        var length = Array(repeating: Array(repeating: 0, count: received.count + 1), count: expected.count + 1)
        for i in expected.indices.reversed() {
            for j in received.indices.reversed() {
                length[i][j] = matches[i][j] ? length[i + 1][j + 1] + 1 : max(length[i + 1][j], length[i][j + 1])
            }
        }
        var rows: [Row] = []
        var missing: [Int] = [], extra: [Int] = []
        func flush() {
            rows += pair(missing, extra, expected, received)
            missing.removeAll()
            extra.removeAll()
        }
        var i = 0, j = 0
        while i < expected.count || j < received.count {
            if i < expected.count, j < received.count, matches[i][j], length[i][j] == length[i + 1][j + 1] + 1 {
                flush()
                rows.append(.ok(j))
                i += 1
                j += 1
            } else if j >= received.count || (i < expected.count && length[i + 1][j] >= length[i][j + 1]) {
                missing.append(i)
                i += 1
            } else {
                extra.append(j)
                j += 1
            }
        }
        flush()
        return rows
    }

    /// The rows of a stretch between two matches: an expectation and a request for the same method and path are
    /// paired (in order) as a difference; the others are missing or extra.
    private static func pair(
        _ missing: [Int],
        _ extra: [Int],
        _ expected: [RequestExpectation],
        _ received: [RecordedRequest]
    ) -> [Row] {
        var partner: [Int: Int] = [:]  // received index → expectation index
        var next = 0
        for expectation in missing {
            let target = expected[expectation]
            guard let found = extra[next...].firstIndex(where: { target.hasSameTarget(as: received[$0]) }) else { continue }
            partner[extra[found]] = expectation
            next = found + 1
        }
        var rows: [Row] = []
        var pending = missing[...]
        for index in extra {
            guard let expectation = partner[index] else {
                rows.append(.extra(index))
                continue
            }
            while let first = pending.first, first != expectation {
                if !partner.values.contains(first) { rows.append(.missing(first)) }
                pending = pending.dropFirst()
            }
            pending = pending.dropFirst()
            rows.append(.differs(expectation, index))
        }
        rows += pending.filter { !partner.values.contains($0) }.map { Row.missing($0) }
        return rows
    }
}

extension RequestRecorder {
    /// Fails with ``/Parley/ParleyError/Kind/validation`` and a line-by-line diff unless the transport received exactly
    /// `expected`, in order. See ``RequestExpectation``.
    public func expectRequests(_ expected: [RequestExpectation]) throws(ParleyError) {
        try RequestExpectation.verify(expected, against: requests)
    }
}

extension InMemoryTransport {
    /// Fails with ``/Parley/ParleyError/Kind/validation`` and a line-by-line diff unless the transport received exactly
    /// `expected`, in order. See ``RequestExpectation``.
    public func expectRequests(_ expected: [RequestExpectation]) throws(ParleyError) {
        try RequestExpectation.verify(expected, against: requests)
    }
}
