import PushRules

/// Runs a push's attempts until one gives a final outcome or the deadline or attempt budget says
/// stop, holding one of the provider's in-flight slots throughout. Shared by the APNs and FCM
/// senders so both retry by the same rules.
struct AttemptLoop {
    let policy: RetryPolicy
    let attemptTimeout: Duration
    let budget: PushBudget

    /// A push that gets no slot of the provider's budget before its deadline is expired without
    /// an attempt, under this reason.
    static let noSlotReason = "ProviderBusy"

    func run(
        until deadline: ContinuousClock.Instant, lane: PushBudget.Lane, _ attempt: (Duration) async -> PushOutcome
    ) async -> DeliveryResult {
        await budget.withSlot(lane, before: deadline) { await attempts(until: deadline, attempt) }
            ?? DeliveryResult(status: .expired(reason: Self.noSlotReason), attempts: 0)
    }

    /// `attempt` gets the time it may take. A `credentialExpired` outcome is retried once at
    /// once (the attempt has already dropped the refused credential); a second one is an auth
    /// failure.
    private func attempts(
        until deadline: ContinuousClock.Instant, _ attempt: (Duration) async -> PushOutcome
    ) async -> DeliveryResult {
        let clock = ContinuousClock()
        var attempts = 0
        var failures = 0
        var renewedCredential = false
        var lastReason: String?
        while true {
            let remaining = clock.now.duration(to: deadline)
            // A cancelled caller gets no more attempts: its answer is no longer awaited.
            guard remaining > .zero, !Task.isCancelled else {
                return DeliveryResult(status: .expired(reason: lastReason), attempts: attempts)
            }
            attempts += 1
            let outcome = await attempt(min(attemptTimeout, remaining))
            switch outcome {
            case .sent(let serviceID):
                return DeliveryResult(status: .sent(serviceID: serviceID), attempts: attempts)
            case .tokenInvalid(let verdict):
                return DeliveryResult(status: .tokenInvalid(verdict), attempts: attempts)
            case .rejected(let reason):
                return DeliveryResult(status: .rejected(reason: reason), attempts: attempts)
            case .providerAuthFailure(let reason):
                return DeliveryResult(status: .authFailed(reason: reason), attempts: attempts)
            case .credentialExpired(let reason):
                guard !renewedCredential else {
                    return DeliveryResult(status: .authFailed(reason: reason), attempts: attempts)
                }
                renewedCredential = true
                lastReason = reason
            case .transient(let reason, let retryAfter):
                failures += 1
                lastReason = reason
                guard failures < policy.maximumAttempts else {
                    return DeliveryResult(status: .failed(reason: reason), attempts: attempts)
                }
                let delay = policy.delay(
                    afterAttempt: failures, retryAfter: retryAfter, remaining: clock.now.duration(to: deadline),
                    jitter: Double.random(in: 0..<1))
                guard let delay else { return DeliveryResult(status: .expired(reason: reason), attempts: attempts) }
                try? await Task.sleep(for: delay)
            }
        }
    }
}
