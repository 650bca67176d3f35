import CallPush
import Foundation
import RegistryCore
import Store

/// A call event sent as a push job: more than `CallEvent.maxUsers` users, `"async": true`, or
/// an NDJSON body (the event, then one user id per line). The job's worker composes each
/// device's push in its provider's format, by the token rule, in the bulk lane.
///
/// Idempotent by id across instances like any call event. The job is received first, its digest
/// (`CallEventJobDigest`) computed as the users arrive; then the id is claimed in the same
/// transaction that queues the job (`PushJobStore.enqueue`), so an event has one job or none,
/// whatever crashes or fails. A post whose id is already held gets the first post's job or, for
/// another event, `EngineError.callEventConflict`; it reads the users only for the digest, and
/// stores nothing.
struct CallEventJobIntake {
    static let kind = "call_event"
    /// A call event job's deadline is its expiry, but never further away than a push job's may be.
    static let longestDeadline = PushJobRequest.maximumDeadline.timeInterval

    let context: Engine

    /// `event` with its users `next` at a time until it returns nil (`user_ids` of a JSON body,
    /// or the lines of an NDJSON one): `feed` hashes every user into the digest, and adds them to
    /// the job when there is one.
    func receive(_ event: CallEvent, users next: () async throws -> [UserID]?) async throws -> CallEventJobAnswer {
        let hasher = CallEventJobDigest(event)
        func feed(_ receiving: PushJobIntake.Receiving?) async throws {
            while let users = try await next() {
                hasher.add(users)
                try await receiving?.add(users)
            }
        }
        if let held = try await context.callEvents.find(id: event.id), held.dedupes(at: Date()) {
            try await feed(nil)
            return try await answer(event, digest: hasher.finish(), heldBy: held)
        }
        let receiving = try await PushJobIntake(jobs: context.pushJobs).begin(
            PushJobIntake.Job(
                kind: Self.kind, payload: String(decoding: event.jobJSON.bytes, as: UTF8.self),
                deadline: min(event.expiresAt, Date().addingTimeInterval(Self.longestDeadline))))
        do {
            try await feed(receiving)
            let digest = hasher.finish()
            let handOver = CallEventHandOver(id: event.id, digest: digest, type: event.type.rawValue)
            switch try await receiving.accept(as: handOver) {
            case .queued(let job):
                CallEventMetrics.event(event.type, .sent)
                return .job(job)
            case .eventTaken(let held):
                // Posted meanwhile by someone else: theirs is the event's job.
                await receiving.discard()
                return try await answer(event, digest: digest, heldBy: held)
            case .full:
                throw RegistryError.internal(reason: "a full push job queue was admitted")
            }
        } catch {
            await receiving.discard()
            throw error
        }
    }

    /// The answer to a post whose id `held` holds: the same event gets the job that sends it (as
    /// the first post was answered; the event's history when the job has been pruned), another
    /// event a conflict. A row of an event sent without a job never matches a job's digest.
    private func answer(_ event: CallEvent, digest: String, heldBy held: StoredCallEvent) async throws
        -> CallEventJobAnswer
    {
        try CallEventDispatch.checkSameEvent(event, digest: digest, held)
        CallEventMetrics.event(event.type, .duplicate)
        if let jobID = held.jobID, let job = try await context.pushJobs.store.job(id: jobID) {
            return .job(job)
        }
        return .event(try CallEventAnswer(held, duplicate: true))
    }
}

/// What a call event posted as a job is answered: the job that sends it, or (a repeat post whose
/// job has been pruned) the event's history.
package enum CallEventJobAnswer {
    case job(PushJob)
    case event(CallEventAnswer)
}
