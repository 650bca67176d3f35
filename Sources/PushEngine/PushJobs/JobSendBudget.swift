import NIOConcurrencyHelpers
import RegistryCore

/// How many job pushes this instance works on per provider at once (`PUSH_JOB_CONCURRENCY`): a
/// bound on the job's share of the CPU and of tasks waiting. Each of them then also takes a slot
/// of the provider's `PushBudget` in its bulk lane (`DevicePush.lane`), which is what keeps jobs
/// out of rings' way: at most `PUSH_JOB_SHARE` of the budget, and no job push starts while a
/// synchronous push or a ring waits for a slot.
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
