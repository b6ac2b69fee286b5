#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#elseif canImport(Android)
    import Android
#endif

/// Mutable state behind a `pthread_mutex_t`, for Parley's targets that do not build SwiftNIO.
///
/// Why not `Synchronization.Mutex`: on Linux it locks with raw futex calls that ThreadSanitizer cannot see,
/// so every use is reported as a data race and the sanitizer run becomes useless. A pthread mutex is
/// intercepted by the sanitizer and costs the same uncontended.
package final class LockedState<State> {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var state: State

    package init(_ state: State) {
        self.state = state
        // `pthread_mutex_init` initializes the memory (a trivial C type), as swift-nio's lock does.
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the state.
    package func withLock<Result, Failure: Error>(
        _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }
}

/// Shared between tasks only when its state is itself `Sendable`: `withLock` can hand parts of the state to the caller.
// swift-format-ignore
extension LockedState: @unchecked Sendable where State: Sendable {}  // SAFE: `state` is only read or written inside `withLock`, which holds `mutex` for the whole access, and is Sendable.
