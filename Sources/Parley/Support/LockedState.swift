#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#elseif canImport(Android)
    import Android
#endif

/// Mutable state behind a `pthread_mutex_t`, for Parley's targets that do not build SwiftNIO. The state and the mutex
/// share one allocation (a `ManagedBuffer`); copies of a `LockedState` share them too.
///
/// Why not `Synchronization.Mutex`: on Linux it locks with raw futex calls that ThreadSanitizer cannot see,
/// so every use is reported as a data race and the sanitizer run becomes useless. A pthread mutex is
/// intercepted by the sanitizer and costs the same uncontended.
package struct LockedState<State> {
    /// The state as the header, the mutex as the one element.
    private final class Storage: ManagedBuffer<State, pthread_mutex_t> {
        deinit {
            _ = withUnsafeMutablePointerToElements { pthread_mutex_destroy($0) }
        }
    }

    private let storage: Storage

    package init(_ state: State) {
        // SAFE: `create` called on a subclass of `ManagedBuffer` makes an instance of that subclass.
        storage = unsafeDowncast(Storage.create(minimumCapacity: 1) { _ in state }, to: Storage.self)
        // `pthread_mutex_init` initializes the element's memory (a trivial C type), as swift-nio's lock does.
        _ = storage.withUnsafeMutablePointerToElements { pthread_mutex_init($0, nil) }
    }

    /// Runs `body` with exclusive access to the state.
    package func withLock<Result, Failure: Error>(
        _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try storage.withUnsafeMutablePointers { state, mutex throws(Failure) -> Result in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&state.pointee)
        }
    }
}

/// Shared between tasks only when its state is itself `Sendable`: `withLock` can hand parts of the state to the caller.
// swift-format-ignore
extension LockedState: @unchecked Sendable where State: Sendable {}  // SAFE: the state is only read or written inside `withLock`, which holds the mutex for the whole access, and is Sendable.
