import NIOConcurrencyHelpers
import RegistryCore

/// The pushes this instance's worker has claimed and not started yet, in one line per provider,
/// oldest claim first, and the tasks sending them: up to `sendersPerProvider`
/// (`PUSH_JOB_CONCURRENCY`) per provider, each taking its line's next push as soon as its last
/// one is answered, and ending when the line is empty.
///
/// Replaces a set of tasks per claim that queued for a job slot before every push: the claims
/// then shared the slots first come, first served, so the claims held at once advanced in
/// lockstep, ended together, and the provider's connection idled while they were recorded and
/// the next ones claimed (the fan-out bench's box was a third idle); and every push waited in that
/// line, a suspension and a hand-over more than its answer. In claim order, the oldest claim ends
/// first while the later ones keep the senders busy, so recording it and claiming the next happen
/// beside the sending.
final class JobLanes: Sendable {
    /// One claimed push: the claim's `index`th device.
    struct Push: Sendable {
        let claim: ClaimSending
        let index: Int
    }

    /// One provider's line: each claim's pushes for the provider, in claim order, with how many
    /// were taken; and the senders taking from it.
    private final class Lane: Sendable {
        private struct State {
            var claims: [(claim: ClaimSending, indices: [Int], taken: Int)] = []
            var senders = 0
        }

        private let state = NIOLockedValueBox(State())

        /// Adds `claim`'s pushes; returns how many senders to start for them, counted in.
        func append(_ claim: ClaimSending, indices: [Int], sendersAtMost limit: Int) -> Int {
            state.withLockedValue { state in
                state.claims.append((claim, indices, 0))
                let waiting = state.claims.reduce(0) { $0 + $1.indices.count - $1.taken }
                let starting = max(0, min(limit - state.senders, waiting))
                state.senders += starting
                return starting
            }
        }

        /// The next push; nil, counting the sender asking out, when the line is empty or more
        /// than `limit` senders are running.
        func next(sendersAtMost limit: Int) -> Push? {
            state.withLockedValue { state in
                guard let first = state.claims.first, state.senders <= limit else {
                    state.senders -= 1
                    return nil
                }
                let push = Push(claim: first.claim, index: first.indices[first.taken])
                if first.taken + 1 == first.indices.count {
                    state.claims.removeFirst()
                } else {
                    state.claims[0].taken += 1
                }
                return push
            }
        }
    }

    private let sendersPerProvider: Int
    private let rings: RingsInFlight
    private let lanes = NIOLockedValueBox<[ProviderName: Lane]>([:])
    private let tasks: EngineTasks

    /// The senders run as the engine's `tasks`, so shutdown waits for them.
    init(sendersPerProvider: Int, givingWayTo rings: RingsInFlight, tasks: EngineTasks) {
        self.sendersPerProvider = max(1, sendersPerProvider)
        self.rings = rings
        self.tasks = tasks
    }

    /// Senders per provider now: three quarters while a ring is in flight. The job keeps both
    /// cores busy, and a ring's work waits for a core behind it. During the million-device job
    /// (docs/performance.md, "the kernel's autogroup"), six runs each way: giving way to three
    /// quarters, the job at 31,820–35,650 pushes/s and the rings' p99 at the sink 6.7–8.9 ms; to
    /// half, 29,477–31,755 and 6.1–8.0; not giving way, the rings' p50 higher (3.2–4.2 ms against
    /// 3.0–3.7). A sender over the limit ends after its push; the next claim queued starts them
    /// again up to the limit.
    private var limit: Int { rings.any ? max(1, sendersPerProvider * 3 / 4) : sendersPerProvider }

    /// Queues `claim`'s devices `indices` behind `provider`'s earlier claims, starting senders up
    /// to the limit.
    func enqueue(_ claim: ClaimSending, indices: [Int], provider: ProviderName) {
        guard !indices.isEmpty else { return }
        let lane = lanes.withLockedValue { lanes in
            if let lane = lanes[provider] { return lane }
            let lane = Lane()
            lanes[provider] = lane
            return lane
        }
        let starting = lane.append(claim, indices: indices, sendersAtMost: limit)
        for _ in 0..<starting {
            tasks.start { [self] in
                while let push = lane.next(sendersAtMost: limit) { await push.claim.send(at: push.index) }
            }
        }
    }
}
