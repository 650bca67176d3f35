import PushRules

/// A step before the push itself (getting an access token) ended the attempt with `outcome`.
struct OutcomeError: Error, Sendable {
    let outcome: PushOutcome
}
