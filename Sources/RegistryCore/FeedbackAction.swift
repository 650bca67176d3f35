/// What applying one feedback item actually did, reported back per token.
public enum FeedbackAction: String, Sendable, Hashable, Codable, CaseIterable {
    /// The token was removed.
    case deleted
    /// The policy said delete, but the device was seen after the failure, so the row was kept.
    case keptNewer = "kept_newer"
    /// The token was marked disabled with the reason.
    case disabled
    /// The reason does not affect tokens, or the token is not registered.
    case ignored
}
