/// What invalidation feedback should do to a stored token.
public enum FeedbackPolicy: String, Sendable, Hashable, Codable, CaseIterable {
    /// The token is dead (uninstalled, expired). Delete it — unless the device re-registered
    /// after the failure was observed, which proves the token is alive again (APNs reports
    /// `Unregistered` with a timestamp for exactly this reason).
    case deleteIfNotSeenSince
    /// The token is wrong for how we sent it (bad token, wrong topic, wrong sender). It may still
    /// be good elsewhere — a sandbox token sent to production is a fine sandbox token — so keep
    /// the row for inspection but stop sending to it.
    case disable
    /// The failure says nothing about the token (payload, topic, rate limit, unknown reason).
    case ignore
}
