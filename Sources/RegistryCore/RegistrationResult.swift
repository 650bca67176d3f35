/// What `POST /v1/devices` did with a token.
public enum RegistrationResult: String, Sendable, Hashable, Codable, CaseIterable {
    /// The token was new.
    case created
    /// The token was already registered with the same details; only `last_seen_at` moved.
    case unchanged
    /// Same user and token, but some detail (environment, app version, …) changed.
    case updated
    /// The token was registered to another user and now belongs to this one (a shared or resold
    /// device); `previousUserID` says who had it.
    case moved
}
