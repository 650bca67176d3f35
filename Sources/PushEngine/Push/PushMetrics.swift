import Metrics
import PushDelivery
import RegistryCore

/// What `POST /v1/push` counts. Labels are bounded: providers are configured by operators,
/// statuses are a fixed set, and reasons are the push services' own fixed vocabularies (or ours).
enum PushMetrics {
    private struct SendLabels: Hashable {
        let provider: String
        let service: String
        let status: String
        let reason: String
    }

    private struct InvalidatedLabels: Hashable {
        let provider: String
        let action: String
        let reason: String
    }

    private struct DurationLabels: Hashable {
        let provider: String
        let service: String
    }

    private static let sends = MetricHandles<SendLabels, Counter> {
        Counter(
            label: "push_sends_total",
            dimensions: [
                ("provider", $0.provider), ("service", $0.service), ("status", $0.status), ("reason", $0.reason),
            ])
    }
    private static let retries = MetricHandles<String, Counter> {
        Counter(label: "push_retries_total", dimensions: [("provider", $0)])
    }
    private static let expiredBeforeSend = MetricHandles<String, Counter> {
        Counter(label: "push_expired_before_send_total", dimensions: [("provider", $0)])
    }
    private static let invalidated = MetricHandles<InvalidatedLabels, Counter> {
        Counter(
            label: "push_tokens_invalidated_total",
            dimensions: [("provider", $0.provider), ("action", $0.action), ("reason", $0.reason)])
    }
    private static let durations = MetricHandles<DurationLabels, Metrics.Timer> {
        Metrics.Timer(
            label: "push_send_duration_seconds", dimensions: [("provider", $0.provider), ("service", $0.service)])
    }

    /// The two series a push sent at its first attempt touches (nearly every push of a job): the
    /// same handles as `sends` and `durations` give, found with one lookup of two labels instead
    /// of two lookups hashing six.
    private struct FirstAttemptSent: Sendable {
        let sends: Counter
        let duration: Metrics.Timer
    }

    private static let sentAtFirstAttempt = MetricHandles<DurationLabels, FirstAttemptSent> {
        FirstAttemptSent(
            sends: sends[SendLabels(provider: $0.provider, service: $0.service, status: "sent", reason: "")],
            duration: durations[$0])
    }

    /// `push_sends_total{provider, service, status, reason}` and, for pushes that reached a push
    /// service, `push_send_duration_seconds{provider, service}` from request in to its answer.
    static func record(_ result: PushResult, service: PushService, delivery: DeliveryResult?, duration: Duration?) {
        let attempts = delivery?.attempts ?? 0
        if result.status == .sent, result.reason == nil, attempts <= 1, let duration {
            let series = sentAtFirstAttempt[DurationLabels(provider: result.provider, service: service.rawValue)]
            series.sends.increment()
            series.duration.record(duration: duration)
            return
        }
        let reason = result.status == .skipped ? skipReason(result.reason ?? "") : (result.reason ?? "")
        sends[
            SendLabels(
                provider: result.provider, service: service.rawValue, status: result.status.rawValue, reason: reason)
        ].increment()
        if attempts > 1 {
            retries[result.provider].increment(by: attempts - 1)
        }
        if result.status == .expired, delivery != nil, attempts == 0 {
            expiredBeforeSend[result.provider].increment()
        }
        if let action = result.action, action == .deleted || action == .disabled {
            invalidated[InvalidatedLabels(provider: result.provider, action: action.rawValue, reason: reason)]
                .increment()
        }
        if let duration {
            durations[DurationLabels(provider: result.provider, service: service.rawValue)].record(duration: duration)
        }
    }

    /// A bounded label for a skip: its reason text names tokens' kinds and push types.
    private static func skipReason(_ reason: String) -> String {
        if reason.hasPrefix("disabled") { return "disabled" }
        if reason.hasPrefix(TokenMismatch.prefix) { return "token_mismatch" }
        return "no_section"
    }
}
