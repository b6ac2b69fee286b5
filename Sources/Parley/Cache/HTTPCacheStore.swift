/// Where an ``HTTPCache`` keeps responses: ``MemoryCacheStore`` or ``DiskCacheStore``, or one of yours.
///
/// Keys are the cache's own (method and URL); a store keeps several responses per key (one per `Vary` variant) and
/// bounds what it keeps.
public protocol HTTPCacheStore: Sendable {
    /// The responses stored under `key`.
    func responses(for key: String) async -> [CachedResponse]
    /// Stores `responses` under `key`, replacing what was there; an empty list removes the key.
    func store(_ responses: [CachedResponse], for key: String) async
    /// Removes everything.
    func removeAll() async
}
