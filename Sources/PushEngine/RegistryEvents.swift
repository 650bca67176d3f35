import Metrics
import NIOConcurrencyHelpers
import RegistryCore

/// Counts what happens to registrations, for `registry_events_total{event, provider, type}`:
/// registered results (created, unchanged, updated, moved), rotated, evicted, unregistered,
/// invalidated (by feedback: deleted, disabled) and pruned. Labels are bounded: events are a
/// fixed set, providers are configured by operators.
public struct RegistryEvents: Sendable {
    private let counters = Counters()

    public init() {}

    package func registered(_ outcome: RegistrationOutcome) {
        registered(outcome.result, provider: outcome.device.provider, type: outcome.device.type)
        let provider = outcome.device.provider.value
        let type = outcome.device.type.rawValue
        if !outcome.replacedTokens.isEmpty {
            count("rotated", provider: provider, type: type, outcome.replacedTokens.count)
        }
        if !outcome.evictedTokens.isEmpty {
            count("evicted", provider: provider, type: type, outcome.evictedTokens.count)
        }
    }

    package func registered(_ result: RegistrationResult, provider: ProviderName, type: TokenType) {
        count(result.rawValue, provider: provider.value, type: type.rawValue)
    }

    package func unregistered(_ n: Int) {
        if n > 0 { count("unregistered", provider: "", type: "", n) }
    }

    package func invalidated(_ action: FeedbackAction, provider: ProviderName) {
        switch action {
        case .deleted, .disabled: count("invalidated_\(action.rawValue)", provider: provider.value, type: "")
        case .keptNewer, .ignored: break
        }
    }

    public func pruned(_ n: Int) {
        if n > 0 { count("pruned", provider: "", type: "", n) }
    }

    private func count(_ event: String, provider: String, type: String, _ n: Int = 1) {
        counters.counter(event: event, provider: provider, type: type).increment(by: n)
    }

    /// Each label set's counter, made once when first counted (so from the metrics system
    /// `serve` bootstrapped) and reused: making one per registration validated and hashed its
    /// labels under the backend's registry-wide lock every time.
    private final class Counters: Sendable {
        private struct Labels: Hashable {
            let event: String
            let provider: String
            let type: String
        }

        private let made = NIOLockedValueBox<[Labels: Counter]>([:])

        func counter(event: String, provider: String, type: String) -> Counter {
            let labels = Labels(event: event, provider: provider, type: type)
            if let counter = made.withLockedValue({ $0[labels] }) { return counter }
            let counter = Counter(
                label: "registry_events_total", dimensions: [("event", event), ("provider", provider), ("type", type)])
            return made.withLockedValue { made in
                if let first = made[labels] { return first }
                made[labels] = counter
                return counter
            }
        }
    }
}
