public import Parley

extension RequestExpectation {
    /// Fails with ``ParleyError/Kind/validation`` unless `received` are exactly the `expected` requests, in order.
    ///
    /// The message lines the two lists up (the longest run of matching requests kept in step) and marks each
    /// request `ok`, `differs` (with one line per difference), `extra` (received, not expected) or `missing`
    /// (expected, not received).
    public static func verify(_ expected: [RequestExpectation], against received: [RecordedRequest]) throws(ParleyError) {
        let rows = align(expected, received)
        guard rows.contains(where: { if case .ok = $0 { false } else { true } }) else { return }
        var lines = ["The requests the transport received differ from the expected ones "
            + "(\(received.count) received, \(expected.count) expected):"]
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
        throw ParleyError(.validation, lines.joined(separator: "\n"))
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
            for (expectation, index) in zip(missing, extra) { rows.append(.differs(expectation, index)) }
            rows += extra.dropFirst(missing.count).map { Row.extra($0) }
            rows += missing.dropFirst(extra.count).map { Row.missing($0) }
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
}

extension RequestRecorder {
    /// Fails with ``ParleyError/Kind/validation`` and a line-by-line diff unless the transport received exactly
    /// `expected`, in order. See ``RequestExpectation``.
    public func expectRequests(_ expected: [RequestExpectation]) throws(ParleyError) {
        try RequestExpectation.verify(expected, against: requests)
    }
}

extension InMemoryTransport {
    /// Fails with ``ParleyError/Kind/validation`` and a line-by-line diff unless the transport received exactly
    /// `expected`, in order. See ``RequestExpectation``.
    public func expectRequests(_ expected: [RequestExpectation]) throws(ParleyError) {
        try RequestExpectation.verify(expected, against: requests)
    }
}
