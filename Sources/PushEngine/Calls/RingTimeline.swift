import Foundation
import Metrics
import NIOConcurrencyHelpers

/// Where a ring's time goes: `call_event_ring_seconds{stage}`, each stage timed from the moment
/// the engine took the event (its request read, signed and parsed) to the first time the ring
/// reached that stage. A late ring looks the same from outside whatever held it (the claim's
/// commit, the device read, a send slot, a push connection busy with a job); the gaps between
/// its stages say which. One histogram series per stage, so p99s compare across stages.
final class RingTimeline: Sendable {
    enum Stage: String, CaseIterable, Sendable {
        /// The claim's task asking the pool for a connection: the hops from the engine to it.
        case claimAsked = "claim_asked"
        /// A connection of the pool's urgent line taken for the claim, on the pool's thread: the
        /// wait for a free connection (and for that thread to run).
        case connected
        /// The claim's transaction begun in PostgreSQL (its clock): the pipeline sent, and its
        /// backend awake.
        case serverBegan = "server_began"
        /// The claim and the device read done in PostgreSQL (its clock); the COMMIT (its WAL
        /// flush) and the way back to the ring come after.
        case serverRead = "server_read"
        /// The claim and its users' devices read answered (in one round trip, before its COMMIT
        /// has: reached by a redelivery too); the ring's pushes may leave from here.
        case devicesRead = "devices_read"
        /// The event's id claimed, committed (the COMMIT's answer, which comes while the pushes
        /// are being sent: a webhook's answer waits for it).
        case claimed
        /// Providers and payload keys read: composing starts.
        case sending
        /// The first push composed and handed to its provider's sender.
        case handedToSender = "handed_to_sender"
        /// A push service's first answer (whatever it said).
        case pushAnswered = "push_answered"
        /// The answer to the caller ready: for a webhook, once its pushes are out.
        case answered
    }

    static let label = "call_event_ring_seconds"
    /// Finer than the metrics backend's default (which starts at 5 ms) where a ring's stages lie.
    static let buckets: [Duration] = [
        .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(3), .milliseconds(5),
        .milliseconds(7), .milliseconds(10), .milliseconds(15), .milliseconds(20), .milliseconds(30),
        .milliseconds(50), .milliseconds(75), .milliseconds(100), .milliseconds(250), .milliseconds(500),
        .seconds(1), .milliseconds(2500),
    ]
    private static let timers = Dictionary(
        uniqueKeysWithValues: Stage.allCases.map { ($0, Timer(label: label, dimensions: [("stage", $0.rawValue)])) })

    private let start = ContinuousClock.now
    /// `start` on the wall clock, for moments another process saw (`reach(_:at:)`).
    private let startDate = Date()
    private let reached = NIOLockedValueBox<Set<Stage>>([])

    /// Records `stage` the first time this ring reaches it (its first device's push, when it has several).
    func reach(_ stage: Stage) {
        record(stage, start.duration(to: .now))
    }

    /// Records `stage` at `date` on the wall clock (PostgreSQL's), the first time this ring reaches it.
    func reach(_ stage: Stage, at date: Date) {
        record(stage, .microseconds(Int64((max(0, date.timeIntervalSince(startDate)) * 1_000_000).rounded())))
    }

    private func record(_ stage: Stage, _ elapsed: Duration) {
        guard reached.withLockedValue({ $0.insert(stage).inserted }) else { return }
        Self.timers[stage]?.record(duration: elapsed)
    }
}
