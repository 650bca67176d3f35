import Foundation
import Metrics
import NIOConcurrencyHelpers

/// When each APNs provider with certificate authentication sees its certificate expire, as this
/// process last read it (at start, and whenever the provider's sender is built): for `/readyz`
/// and the `apns_certificate_expiry_timestamp_seconds{provider}` gauge (Unix time, the way
/// certificate expiry is exported elsewhere, so an alert reads
/// `apns_certificate_expiry_timestamp_seconds - time() < 14 * 86400`).
public final class APNsCertificateExpiries: Sendable {
    /// `expiring` within `warningPeriod` of the end; `expired` after it, when APNs refuses it.
    public enum State: String, Sendable {
        case valid
        case expiring
        case expired
    }

    public struct Entry: Sendable, Equatable {
        public let provider: String
        public let notValidAfter: Date
    }

    /// Apple mails a reminder 30 days ahead; so does `/readyz`.
    public static let warningPeriod: TimeInterval = 30 * 86_400
    static let gaugeLabel = "apns_certificate_expiry_timestamp_seconds"

    private let expiries = NIOLockedValueBox([String: Date]())

    public init() {}

    public func record(_ provider: String, notValidAfter: Date) {
        expiries.withLockedValue { $0[provider] = notValidAfter }
        Gauge(label: Self.gaugeLabel, dimensions: [("provider", provider)])
            .record(notValidAfter.timeIntervalSince1970)
    }

    /// The provider was deleted or no longer uses a certificate: its series goes too, rather than
    /// stay behind as an expiry that will fire an alert.
    public func forget(_ provider: String) {
        guard expiries.withLockedValue({ $0.removeValue(forKey: provider) }) != nil else { return }
        Gauge(label: Self.gaugeLabel, dimensions: [("provider", provider)]).destroy()
    }

    /// Every recorded certificate, by provider name.
    public var entries: [Entry] {
        expiries.withLockedValue { $0.map { Entry(provider: $0.key, notValidAfter: $0.value) } }
            .sorted { $0.provider < $1.provider }
    }

    public static func state(of notValidAfter: Date, at now: Date) -> State {
        if notValidAfter <= now { return .expired }
        return notValidAfter.timeIntervalSince(now) <= warningPeriod ? .expiring : .valid
    }
}
