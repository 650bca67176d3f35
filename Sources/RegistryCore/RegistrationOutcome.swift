/// The answer to a registration: the stored device, what happened, and which other tokens the
/// registration displaced.
public struct RegistrationOutcome: Sendable, Hashable {
    public var device: Device
    public var result: RegistrationResult
    /// Set when `result == .moved`.
    public var previousUserID: UserID?
    /// Tokens of the same installation (`device_id`) and type that this token superseded.
    public var replacedTokens: [String]
    /// Tokens removed to keep the user under a per-user device limit.
    public var evictedTokens: [String]

    public init(
        device: Device, result: RegistrationResult, previousUserID: UserID? = nil,
        replacedTokens: [String] = [], evictedTokens: [String] = []
    ) {
        self.device = device
        self.result = result
        self.previousUserID = previousUserID
        self.replacedTokens = replacedTokens
        self.evictedTokens = evictedTokens
    }
}
