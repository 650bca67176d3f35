import CallPush
import Metrics

/// What call events count. Labels are bounded: event types and statuses are fixed sets, and the
/// webhook results are the cases below; no id, token or secret is ever a label.
package enum CallEventMetrics {
    /// What became of a posted event: sent (the first post), duplicate, conflict (409), or
    /// abandoned (a duplicate found its first poster gone).
    enum Outcome: String {
        case sent, duplicate, conflict, abandoned
    }

    /// What the DialStack webhook made of a delivery.
    package enum WebhookResult: String {
        case accepted, ignored, duplicate
        case notConfigured = "not_configured"
        case missingSignature = "missing_signature"
        case malformedSignature = "malformed_signature"
        case staleTimestamp = "stale_timestamp"
        case badSignature = "bad_signature"
        case invalidBody = "invalid_body"

        package init(_ failure: DialStackSignatureFailure) {
            switch failure {
            case .missingHeader: self = .missingSignature
            case .malformedHeader: self = .malformedSignature
            case .timestampOutsideTolerance: self = .staleTimestamp
            case .noMatchingSignature: self = .badSignature
            }
        }
    }

    /// The histograms whose buckets differ from the metrics backend's defaults, by label.
    package static let durationBuckets = [RingTimeline.label: RingTimeline.buckets]

    /// `call_events_total{type, outcome}`.
    static func event(_ type: CallEventType, _ outcome: Outcome) {
        Counter(label: "call_events_total", dimensions: [("type", type.rawValue), ("outcome", outcome.rawValue)])
            .increment()
    }

    /// `call_event_pushes_total{type, status}`: one per device of a first post.
    static func devicePushed(_ type: CallEventType, status: PushResult.Status) {
        Counter(
            label: "call_event_pushes_total", dimensions: [("type", type.rawValue), ("status", status.rawValue)]
        ).increment()
    }

    /// `dialstack_webhook_fields_dropped_total{field}`: an optional field of a wake-up that did
    /// not parse and was left out of the ring (the field names are the webhook's few own).
    package static func webhookFieldDropped(_ field: String) {
        Counter(label: "dialstack_webhook_fields_dropped_total", dimensions: [("field", field)]).increment()
    }

    /// `dialstack_webhooks_total{result}`.
    package static func webhook(_ result: WebhookResult) {
        Counter(label: "dialstack_webhooks_total", dimensions: [("result", result.rawValue)]).increment()
    }
}
