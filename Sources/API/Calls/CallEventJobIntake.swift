import CallPush
import Foundation
import HTTPServer
import PushEngine
import RegistryCore
import Store

/// A call event sent as a push job: more than `CallEvent.maxUsers` users, `"async": true`, or
/// an NDJSON body (the event, then one user id per line). The job's worker composes each
/// device's push in its provider's format, by the token rule, in the bulk lane.
///
/// Idempotent by id across instances like any call event. The job is received first, its digest
/// (`CallEventJobDigest`) computed as the users arrive; then the id is claimed in the same
/// transaction that queues the job (`PushJobStore.enqueue`), so an event has one job or none,
/// whatever crashes or fails. A post whose id is already held gets the first post's job (202) or,
/// for another event, 409; it reads the users only for the digest, and stores nothing.
struct CallEventJobIntake {
    static let kind = Engine.callEventJobKind
    /// A call event job's deadline is its expiry, but never further away than a push job's may be.
    static let longestDeadline = PushJobRequest.maximumDeadline.timeInterval

    let context: APIContext

    /// A JSON body with its users in `user_ids`.
    func receive(json body: JSONValue) async throws -> HTTPResponse {
        let event = try CallEvent.parse(body, arrivedAt: Date(), users: .job)
        return try await receive(event) { receiving, digest in
            for chunk in PushJobIntake.chunks(of: event.userIDs) {
                digest.add(chunk)
                try await receiving?.add(Array(chunk))
            }
        }
    }

    /// An NDJSON body: the event without `user_ids`, then its users.
    func receive(stream body: RequestBodyStream) async throws -> HTTPResponse {
        var lines = JobLines(body)
        let event = try CallEvent.parse(try await lines.header(), arrivedAt: Date(), users: .streamed)
        return try await receive(event) { receiving, digest in
            while let users = try await lines.nextUsers() {
                digest.add(users)
                try await receiving?.add(users)
            }
        }
    }

    /// `feed` hashes every user into the digest, and adds them to the job when there is one.
    private func receive(
        _ event: CallEvent, feed: (PushJobIntake.Receiving?, CallEventJobDigest) async throws -> Void
    ) async throws -> HTTPResponse {
        let hasher = CallEventJobDigest(event)
        if let held = try await context.callEvents.find(id: event.id), held.dedupes(at: Date()) {
            try await feed(nil, hasher)
            return try await answer(event, digest: hasher.finish(), heldBy: held)
        }
        let receiving = try await PushJobIntake(jobs: context.engine.pushJobs).begin(
            PushJobIntake.Job(
                kind: Self.kind, payload: String(decoding: event.jobJSON.bytes, as: UTF8.self),
                deadline: min(event.expiresAt, Date().addingTimeInterval(Self.longestDeadline))))
        do {
            try await feed(receiving, hasher)
            let digest = hasher.finish()
            let handOver = CallEventHandOver(id: event.id, digest: digest, type: event.type.rawValue)
            switch try await receiving.accept(as: handOver) {
            case .queued(let job):
                CallEventMetrics.event(event.type, .sent)
                return PushJobIntake.accepted(job)
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

    /// The answer to a post whose id `held` holds: the same event gets the job that sends it (202,
    /// as the first post was answered; the event's history when the job has been pruned), another
    /// event 409. A row of an event sent without a job never matches a job's digest.
    private func answer(_ event: CallEvent, digest: String, heldBy held: StoredCallEvent) async throws
        -> HTTPResponse
    {
        try CallEventDispatch.checkSameEvent(event, digest: digest, held)
        CallEventMetrics.event(event.type, .duplicate)
        if let jobID = held.jobID, let job = try await context.engine.pushJobs.store.job(id: jobID) {
            return PushJobIntake.accepted(job)
        }
        return .json(try CallEventAnswer(held, duplicate: true))
    }
}
