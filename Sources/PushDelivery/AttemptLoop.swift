import PushRules

/// Runs a push's attempts until one gives a final outcome or the deadline or attempt budget says
/// stop, holding one of the provider's in-flight slots throughout. Shared by the APNs and FCM
/// senders so both retry by the same rules.
///
/// APNs and FCM do not deduplicate, so an attempt that reached the service whole and got no
/// answer may have been delivered. Such an attempt is resent only when its connection proved
/// dead (`ConnectionFailure.lost`), on another connection, and at most once per push: a ring
/// rings at most twice, and the result says so (`maybeDelivered`). One the service may still be
/// working on (`.unanswered`: the connection answers PINGs) is never resent.
struct AttemptLoop {
    let policy: RetryPolicy
    let attemptTimeout: Duration
    let budget: PushBudget

    /// A push that gets no slot of the provider's budget before its deadline is expired without
    /// an attempt, under this reason.
    static let noSlotReason = "ProviderBusy"

    /// One attempt: given the time it may take, the service's answer, or why there is none.
    typealias Attempt = (Duration) async throws(ConnectionFailure) -> PushOutcome

    func run(
        until deadline: ContinuousClock.Instant, lane: PushBudget.Lane, _ attempt: Attempt
    ) async -> DeliveryResult {
        await budget.withSlot(lane, before: deadline) { await attempts(until: deadline, attempt) }
            ?? DeliveryResult(status: .expired(reason: Self.noSlotReason), attempts: 0)
    }

    /// A `credentialExpired` outcome is retried once at once (the attempt has already dropped
    /// the refused credential); a second one is an auth failure.
    private func attempts(until deadline: ContinuousClock.Instant, _ attempt: Attempt) async -> DeliveryResult {
        let clock = ContinuousClock()
        var attempts = 0
        var failures = 0
        var renewedCredential = false
        var maybeDelivered = false
        var lastReason: String?
        func result(_ status: DeliveryResult.Status) -> DeliveryResult {
            DeliveryResult(status: status, attempts: attempts, maybeDelivered: maybeDelivered)
        }
        while true {
            let remaining = clock.now.duration(to: deadline)
            // A cancelled caller gets no more attempts: its answer is no longer awaited.
            guard remaining > .zero, !Task.isCancelled else { return result(.expired(reason: lastReason)) }
            attempts += 1
            let outcome: PushOutcome
            do throws(ConnectionFailure) {
                outcome = try await attempt(min(attemptTimeout, remaining))
            } catch {
                lastReason = error.reason
                if error.mayHaveBeenDelivered {
                    let resend = error == .lost && !maybeDelivered
                    maybeDelivered = true
                    if !resend {
                        let timeLeft = clock.now < deadline
                        return result(timeLeft ? .failed(reason: error.reason) : .expired(reason: error.reason))
                    }
                }
                failures += 1
                guard failures < policy.maximumAttempts else { return result(.failed(reason: error.reason)) }
                // A closed or lost connection is no sign of an overloaded service: the next
                // attempt goes at once, to another connection.
                if error == .closed || error == .lost { continue }
                guard await pause(afterFailure: failures, retryAfter: nil, until: deadline) else {
                    return result(.expired(reason: error.reason))
                }
                continue
            }
            switch outcome {
            case .sent(let serviceID):
                return result(.sent(serviceID: serviceID))
            case .tokenInvalid(let reason, let policy, let observedAt):
                return result(.tokenInvalid(reason: reason, policy: policy, observedAt: observedAt))
            case .rejected(let reason):
                return result(.rejected(reason: reason))
            case .providerAuthFailure(let reason):
                return result(.authFailed(reason: reason))
            case .credentialExpired(let reason):
                guard !renewedCredential else { return result(.authFailed(reason: reason)) }
                renewedCredential = true
                lastReason = reason
            case .transient(let reason, let retryAfter):
                failures += 1
                lastReason = reason
                guard failures < policy.maximumAttempts else { return result(.failed(reason: reason)) }
                guard await pause(afterFailure: failures, retryAfter: retryAfter, until: deadline) else {
                    return result(.expired(reason: reason))
                }
            }
        }
    }

    /// Waits out the backoff after the `failures`th transient failure; false when the next
    /// attempt could not start before `deadline`.
    private func pause(afterFailure failures: Int, retryAfter: Duration?, until deadline: ContinuousClock.Instant)
        async -> Bool
    {
        guard
            let delay = policy.delay(
                afterAttempt: failures, retryAfter: retryAfter, remaining: ContinuousClock.now.duration(to: deadline),
                jitter: Double.random(in: 0..<1))
        else { return false }
        try? await Task.sleep(for: delay)
        return true
    }
}
