import Parley

extension JSONRPCClient {
    /// Sends entries as one batch; with a ``retry`` policy, the calls that failed in a retryable way and are
    /// repeatable are sent again as a smaller batch, until they succeed or the attempts run out. Notifications and
    /// calls that are not repeatable are sent once.
    func send(
        _ entries: [JSONRPCCoding.Entry]
    ) async throws(ParleyError) -> (outcomes: [Result<any Sendable, ParleyError>], unmatched: [ParleyError], unmatchedCount: Int)
    {
        var results = try await sendOnce(entries)
        guard let retry else { return results }
        var attempt = 1
        while attempt < retry.maxAttempts, !Task.isCancelled {
            let again = entries.indices.filter { index in
                guard entries[index].decode != nil, entries[index].isRepeatable,
                    case .failure(let error) = results.outcomes[index]
                else { return false }
                return retry.isRetryable(error)
            }
            guard !again.isEmpty else { break }
            try await Self.wait(retry.backoff.delay(beforeAttempt: attempt))
            attempt += 1
            let retried: (outcomes: [Result<any Sendable, ParleyError>], unmatched: [ParleyError], unmatchedCount: Int)
            do throws(ParleyError) {
                retried = try await sendOnce(again.map { entries[$0] })
            } catch  where retry.isRetryable(error) {
                continue
            }
            for (position, index) in again.enumerated() { results.outcomes[index] = retried.outcomes[position] }
            results.unmatched += retried.unmatched.prefix(max(0, 16 - results.unmatched.count))
            results.unmatchedCount += retried.unmatchedCount
        }
        return results
    }
}
