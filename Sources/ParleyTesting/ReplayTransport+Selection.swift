import Parley

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension ReplayTransport {
    /// The exchange that answers `incoming` under ``matching`` (marked used), or the loud failure.
    func select(_ incoming: ReplayRequest) throws(ParleyError) -> ReplayExchange {
        let reasons = exchanges.map { $0.reasons(against: incoming, matching: matching) }
        let chosen: Int? = used.withLock { used in
            let pick: Int?
            switch matching.order {
            case .recorded:
                pick = used.firstIndex(of: false).flatMap { reasons[$0].isEmpty ? $0 : nil }
            case .any:
                let matches = exchanges.indices.filter { reasons[$0].isEmpty }
                if let unused = matches.first(where: { !used[$0] }) {
                    pick = unused
                } else {
                    return matching.reusesExchanges ? matches.last : nil
                }
            }
            if let pick { used[pick] = true }
            return pick
        }
        if let chosen { return exchanges[chosen] }
        throw unmatched(incoming, reasons: reasons)
    }

    /// The failure for a request that no exchange may answer: the closest candidates and how to re-record.
    private func unmatched(_ incoming: ReplayRequest, reasons: [[String]]) -> ParleyError {
        let used = self.used.withLock { $0 }
        let next = used.firstIndex(of: false)
        var explained = reasons
        for index in exchanges.indices {
            if used[index] {
                explained[index].append(
                    "already used (each exchange answers once; Matching.reusesExchanges lets it answer again)"
                )
            } else if matching.order == .recorded, let next, index != next, reasons[index].isEmpty {
                explained[index].append("matches, but the order is strict (Matching.order = .recorded) and #\(next) comes first")
            }
        }
        var ranked = exchanges.indices.sorted {
            (ReplayExchange.distance(explained[$0]), $0) < (ReplayExchange.distance(explained[$1]), $1)
        }
        if matching.order == .recorded, let next {
            ranked.removeAll { $0 == next }
            ranked.insert(next, at: 0)
        }
        let candidates = ranked.prefix(3).map { index in
            ReplayError.Candidate(index: index, request: exchanges[index].request.summary, reasons: explained[index])
        }
        let file = fixtureURL?.path ?? "the fixture"
        var message =
            "ReplayTransport has no recorded exchange for \(incoming.summary) (\(file): \(exchanges.count) "
            + "exchanges, \(used.filter { $0 }.count) used; matching: \(description(of: matching)))."
        if exchanges.isEmpty {
            message += "\nThe fixture holds no exchanges."
        } else if matching.order == .recorded, next == nil {
            message += "\nEvery recorded exchange has been used."
        }
        if !candidates.isEmpty {
            message += "\nClosest recorded exchanges:\n" + candidates.map { "  \($0)" }.joined(separator: "\n")
        }
        let destination = fixtureURL.map { "URL(filePath: \(String(reflecting: $0.path)))" } ?? "<fixture URL>"
        message +=
            "\nIf the code or the server changed, re-record: run the test once against the real server with "
            + "RecordingTransport(wrapping: <live transport>, fixture: \(destination)) in place of this ReplayTransport, "
            + "and review the fixture's diff."
        let error = ReplayError(
            request: incoming.summary,
            candidates: candidates,
            unused: [],
            fixture: fixtureURL,
            description: message
        )
        return ParleyError(.transport, multilineMessage: message, underlying: error)
    }

    private func description(of matching: Matching) -> String {
        [
            matching.order == .recorded ? "recorded order" : "any order",
            matching.queryOrderMatters ? "query order matters" : "query order ignored",
            matching.matchesBody ? "bodies compared" : "bodies ignored",
        ].joined(separator: ", ")
    }
}
