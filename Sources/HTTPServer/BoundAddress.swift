import NIOConcurrencyHelpers
import NIOCore

/// The server's address once bound (or why binding failed), awaitable before that happens.
final class BoundAddress: Sendable {
    private enum State {
        case waiting([CheckedContinuation<SocketAddress, any Error>])
        case resolved(Result<SocketAddress, any Error>)
    }

    private let state = NIOLockedValueBox(State.waiting([]))

    func resolve(_ result: Result<SocketAddress, any Error>) {
        let waiters: [CheckedContinuation<SocketAddress, any Error>] = state.withLockedValue { state in
            guard case .waiting(let waiters) = state else { return [] }
            state = .resolved(result)
            return waiters
        }
        for waiter in waiters { waiter.resume(with: result) }
    }

    var value: SocketAddress {
        get async throws {
            try await withCheckedThrowingContinuation { continuation in
                let ready: Result<SocketAddress, any Error>? = state.withLockedValue { state in
                    switch state {
                    case .waiting(let waiters):
                        state = .waiting(waiters + [continuation])
                        return nil
                    case .resolved(let result):
                        return result
                    }
                }
                if let ready { continuation.resume(with: ready) }
            }
        }
    }
}
