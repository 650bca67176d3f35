import CallPush
import Foundation
import HTTPServer
import RegistryCore
import Store

/// A call event sent as a push job: more than `CallEvent.maxUsers` users, `"async": true`, or
/// an NDJSON body (the event, then one user id per line). The job's worker composes each
/// device's push in its provider's format, by the token rule, in the bulk lane.
///
/// Idempotent by id across instances like any call event. The job is received first, its digest
/// (`CallEventJobDigest`) computed as the users arrive; only then is the id claimed, and only the
/// first poster's job is handed to the workers. A duplicate's job is discarded and the post
/// answered with the first one's job, so one event never makes two jobs, and the id is held
/// unfinished only for the moment of the hand-over.
struct CallEventJobIntake {
    static let kind = "call_event"
    /// The longest a call event job sends for, however long its ttl: a push job's longest deadline.
    static let maximumSendWindow = PushJobRequest.maximumDeadline.timeInterval
    /// How long a claimed id may stay unfinished while its job is handed over.
    static let handOverWindow: TimeInterval = 10

    let context: APIContext

    /// A JSON body with its users in `user_ids`.
    func receive(json body: JSONValue) async throws -> HTTPResponse {
        let event = try CallEvent.parse(body, arrivedAt: Date(), users: .job)
        return try await receive(event) { receiving, digest in
            for chunk in PushJobIntake.chunks(of: event.userIDs) {
                digest.add(chunk)
                try await receiving.add(Array(chunk))
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
                try await receiving.add(users)
            }
        }
    }

    private func receive(
        _ event: CallEvent, feed: (PushJobIntake.Receiving, CallEventJobDigest) async throws -> Void
    ) async throws -> HTTPResponse {
        let receiving = try await PushJobIntake(jobs: context.pushJobs).begin(
            PushJobIntake.Job(
                kind: Self.kind, payload: String(decoding: event.jobJSON.bytes, as: UTF8.self),
                deadline: min(event.expiresAt, Date().addingTimeInterval(Self.maximumSendWindow))))
        let claim: CallEventClaim
        let digest: String
        do {
            let hasher = CallEventJobDigest(event)
            try await feed(receiving, hasher)
            digest = hasher.finish()
            claim = try await context.callEvents.claim(
                id: event.id, digest: digest, type: event.type.rawValue,
                deadline: Date().addingTimeInterval(Self.handOverWindow))
        } catch {
            await receiving.discard()
            throw error
        }
        switch claim {
        case .claimed:
            let job: PushJob
            do {
                job = try await receiving.accept()
            } catch {
                await receiving.discard()
                try? await context.callEvents.release(id: event.id)
                throw error
            }
            CallEventMetrics.event(event.type, .sent)
            // The job is queued and will send: a failure to note it here is a 503 whose retry
            // finds the id unfinished and, after the hand-over window, abandoned: never a second job.
            try await context.callEvents.finish(id: event.id, resultJSON: "[]", jobID: job.id)
            return PushJobIntake.accepted(job)
        case .existing(let row):
            await receiving.discard()
            return try await duplicate(event, digest: digest, row)
        }
    }

    /// The first post's job (202, as it answered), once it has handed it over; or, when it never
    /// did (it died first), the event's history as any duplicate gets it.
    private func duplicate(_ event: CallEvent, digest: String, _ row: StoredCallEvent) async throws -> HTTPResponse {
        try CallEventDispatch.checkSameEvent(event, digest: digest, row)
        let dispatch = CallEventDispatch(context: context)
        let settled = try await dispatch.settled(row)
        if let jobID = settled.jobID, let job = try await context.pushJobs.store.job(id: jobID) {
            CallEventMetrics.event(event.type, .duplicate)
            return PushJobIntake.accepted(job)
        }
        return .json(try dispatch.duplicate(event, settled))
    }
}
