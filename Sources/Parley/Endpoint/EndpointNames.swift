/// Type names of endpoints, computed once per type: `String(describing:)` demangles on every call.
enum EndpointNames {
    private static let cache = LockedState<[ObjectIdentifier: String]>([:])

    static func name(of type: Any.Type) -> String {
        let key = ObjectIdentifier(type)
        if let name = cache.withLock({ $0[key] }) { return name }
        let name = String(describing: type)
        cache.withLock { $0[key] = name }
        return name
    }
}
