import NIOConcurrencyHelpers
import RegistryCore

/// How many job pushes may be in flight to one provider from this instance at once: the seam
/// through which jobs stay out of synchronous pushes' way. Today each provider gets its own
/// `PUSH_JOB_CONCURRENCY` slots, beside whatever `POST /v1/push` uses; a shared per-provider
/// budget with an interactive and a bulk lane replaces this type's body, not its callers.
final class JobSendBudget: Sendable {
    private let perProvider: Int
    private let slots = NIOLockedValueBox<[ProviderName: AsyncSlots]>([:])

    init(perProvider: Int) {
        self.perProvider = perProvider
    }

    /// Runs `send` once a slot for `provider` is free; nil when cancelled while waiting.
    func withSlot<T: Sendable>(for provider: ProviderName, _ send: () async -> T) async -> T? {
        let slots = slots.withLockedValue { all in
            if let existing = all[provider] { return existing }
            let created = AsyncSlots(limit: perProvider)
            all[provider] = created
            return created
        }
        do { try await slots.acquire() } catch { return nil }
        defer { slots.release() }
        return await send()
    }
}
