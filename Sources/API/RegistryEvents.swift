import Metrics
import RegistryCore

/// Counts what happens to registrations, for `registry_events_total{event, provider, type}`:
/// registered results (created, unchanged, updated, moved), rotated, evicted, unregistered,
/// invalidated (by feedback: deleted, disabled) and pruned. Labels are bounded: events are a
/// fixed set, providers are configured by operators.
public struct RegistryEvents: Sendable {
    public init() {}

    func registered(_ outcome: RegistrationOutcome) {
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

    func registered(_ result: RegistrationResult, provider: ProviderName, type: TokenType) {
        count(result.rawValue, provider: provider.value, type: type.rawValue)
    }

    func unregistered(_ n: Int) {
        if n > 0 { count("unregistered", provider: "", type: "", n) }
    }

    func invalidated(_ action: FeedbackAction, provider: ProviderName) {
        switch action {
        case .deleted, .disabled: count("invalidated_\(action.rawValue)", provider: provider.value, type: "")
        case .keptNewer, .ignored: break
        }
    }

    public func pruned(_ n: Int) {
        if n > 0 { count("pruned", provider: "", type: "", n) }
    }

    private func count(_ event: String, provider: String, type: String, _ n: Int = 1) {
        Counter(label: "registry_events_total", dimensions: [("event", event), ("provider", provider), ("type", type)])
            .increment(by: n)
    }
}
