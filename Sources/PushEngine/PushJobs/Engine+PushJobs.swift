import Foundation
import RegistryCore
import Store

/// Push jobs as the API hands them in, follows and cancels them; the workers are `run`'s.
extension Engine {
    /// Users a job takes in at a time: what a streamed body's reader hands over per call.
    package static let usersPerChunk = PushJobIntake.chunkSize

    /// A push job, its users `next` at a time until it returns nil: the queued job.
    package func receiveJob(_ request: PushJobRequest, users next: () async throws -> [UserID]?) async throws
        -> PushJob
    {
        try await PushJobIntake(jobs: pushJobs).receive(request, users: next)
    }

    /// A push job with its users in the request (`user_ids` of a JSON body).
    package func receiveJob(_ request: PushJobRequest) async throws -> PushJob {
        try await receiveJob(request, users: PushJobIntake.chunks(of: request.users))
    }

    /// The job `id` as it stands; nil when there is none.
    package func job(id: String) async throws -> PushJob? {
        try await pushJobs.store.job(id: id)
    }

    /// Cancels job `id`; nil when there is no such job (or it was pruned meanwhile). Answers once
    /// no worker holds a claim on its devices: each has recorded what it sent and given back what
    /// it did not start, or its lease ran out (a dead instance). So once the cancel answers, none
    /// of the job's pushes is in flight and none starts.
    package func cancelJob(id: String) async throws -> PushJob? {
        guard try await pushJobs.store.cancel(id: id) != nil else { return nil }
        pushJobs.noteCancelled(id)
        try await waitForClaims(of: id)
        return try await pushJobs.store.job(id: id)
    }

    /// A worker that can no longer reach the database stops starting pushes when its lease runs
    /// out, so the wait is bounded by the lease plus one push's timeout.
    private func waitForClaims(of id: String) async throws {
        let limit = ContinuousClock.now + pushJobs.settings.lease + pushJobs.settings.pushTimeout
        while try await pushJobs.store.heldClaims(job: id) > 0 {
            guard ContinuousClock.now < limit else {
                throw RegistryError.unavailable(reason: "push job \(id): claims still held after the cancel")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
