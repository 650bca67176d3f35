import NIOConcurrencyHelpers

/// swift-metrics handles by their label values, each made once when first used (so from the
/// metrics system `serve` bootstrapped) and reused: making one per push asked the backend's
/// factory, which hashes and validates the labels under its registry-wide lock, for every
/// counter a push touches.
final class MetricHandles<Labels: Hashable & Sendable, Handle: Sendable>: Sendable {
    private let made = NIOLockedValueBox<[Labels: Handle]>([:])
    private let make: @Sendable (Labels) -> Handle

    init(_ make: @escaping @Sendable (Labels) -> Handle) {
        self.make = make
    }

    subscript(_ labels: Labels) -> Handle {
        if let handle = made.withLockedValue({ $0[labels] }) { return handle }
        // Made outside the lock (the factory takes its own); the first one stored wins.
        let handle = make(labels)
        return made.withLockedValue { made in
            if let first = made[labels] { return first }
            made[labels] = handle
            return handle
        }
    }
}
