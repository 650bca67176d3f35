import Foundation
import NIOConcurrencyHelpers
import PushRules
import RegistryCore
import Store

/// Takes a job in: the job row, then its devices `chunkSize` users at a time (each user's
/// devices resolved once, here, so counts are per device from the start) as batches of
/// `PUSH_JOB_BATCH` devices, then the hand-over to the workers, which is where the queue limit is
/// enforced. The job is answered only after that hand-over committed; anything that fails before
/// it deletes the job.
struct PushJobIntake {
    /// Users added to a job at a time. Small enough that the chunk's one statement finds its
    /// devices through the `user_id` index and ends well inside `DB_STATEMENT_TIMEOUT_MS`
    /// whatever the table's size: with 10,000 users PostgreSQL chose a scan of all `devices`
    /// once the table held two million, 1.8 s a chunk on a loaded 2-core box, and every job
    /// past 10,000 users failed with 503 (`scripts/bench scale`); 1,000 took 0.1–0.2 s there.
    static let chunkSize = 1_000
    /// Chunks whose statements run at once: one at a time, PostgreSQL and this service took
    /// turns, each waiting for the other (a million users took 5 s on the fan-out bench, the
    /// job's clock running from the start of it).
    static let chunksAtOnce = 3

    let jobs: PushJobs

    /// What a job sends: its kind, its payload as stored, when it ends, and which of its users'
    /// devices it targets (nil: every one).
    struct Job {
        let kind: String
        let payload: String
        let deadline: Date
        var types: [String]? = nil
        var providers: [String]? = nil
    }

    /// One job being received: invisible to the workers until `accept`.
    struct Receiving {
        let id: String
        fileprivate let intake: PushJobIntake
        fileprivate let job: Job
        /// The hashes of the user ids added so far, and whether one came twice. A repeated user
        /// adds its devices again; finding them among the job's recipients reads them all, so
        /// that is done once, at `accept`, and only when a hash repeated (for a million users
        /// the set holds 16 MiB, a chance of about 3 in 10⁸ that two distinct ids share a hash).
        fileprivate let seen = NIOLockedValueBox<(hashes: Set<Int>, repeated: Bool)>(([], false))
        /// Chunks numbered so far: a chunk's batches are claimed in the order it was handed in.
        fileprivate let chunks = NIOLockedValueBox(0)

        /// Adds the next chunk of users.
        func add(_ users: [UserID]) async throws {
            try await add(users, chunk: nextChunk())
        }

        /// Adds every chunk `next` hands over, up to `chunksAtOnce` of them at once.
        func add(from next: () async throws -> [UserID]?) async throws {
            try await withThrowingTaskGroup(of: Void.self) { group in
                var running = 0
                while let users = try await next() {
                    if running == PushJobIntake.chunksAtOnce {
                        try await group.next()
                        running -= 1
                    }
                    let chunk = nextChunk()
                    group.addTask { try await self.add(users, chunk: chunk) }
                    running += 1
                }
                try await group.waitForAll()
            }
        }

        private func nextChunk() -> Int {
            chunks.withLockedValue { chunks in
                defer { chunks += 1 }
                return chunks
            }
        }

        private func add(_ users: [UserID], chunk: Int) async throws {
            guard !users.isEmpty else { return }
            seen.withLockedValue { seen in
                for user in users where !seen.hashes.insert(user.value.hashValue).inserted { seen.repeated = true }
            }
            _ = try await intake.jobs.store.addRecipients(
                job: id, chunk: chunk, users: users, types: job.types, providers: job.providers,
                batchSize: intake.jobs.settings.batchSize)
        }

        /// Hands the job to the workers, for `callEvent` when given (`PushJobStore.enqueue`): the
        /// queued job, or the row holding the event's id. A full queue is `EngineError.jobQueueFull`.
        func accept(as callEvent: CallEventHandOver? = nil) async throws -> PushJobStore.Admission {
            let repeated = seen.withLockedValue { seen in
                defer { seen = ([], seen.repeated) }
                return seen.repeated
            }
            if repeated { try await intake.jobs.store.removeRepeatedRecipients(job: id) }
            let admission = try await intake.jobs.store.enqueue(
                job: id, maxQueued: intake.jobs.settings.maxQueued, callEvent: callEvent)
            if case .full(let queued) = admission { throw intake.full(queued) }
            return admission
        }

        func discard() async {
            try? await intake.jobs.store.discard(job: id)
        }
    }

    /// Starts receiving a job, unless the queue is already full (`EngineError.jobQueueFull`).
    func begin(_ job: Job) async throws -> Receiving {
        let queued = try await jobs.store.queuedRecipients()
        if queued >= jobs.settings.maxQueued { throw full(queued) }
        let id = try await jobs.store.begin(kind: job.kind, payload: job.payload, deadline: job.deadline)
        return Receiving(id: id, intake: self, job: job)
    }

    /// A push job, its users `next` at a time until it returns nil: the queued job.
    func receive(_ request: PushJobRequest, users next: () async throws -> [UserID]?) async throws -> PushJob {
        let receiving = try await begin(
            Job(
                kind: PushJobRequest.kind,
                payload: String(decoding: PushRequest.compactJSON(.object(request.payload)), as: UTF8.self),
                deadline: Date().addingTimeInterval(request.deadline.timeInterval),
                types: request.push.types.map { $0.map(\.rawValue).sorted() },
                providers: request.push.providers.map { $0.map(\.value).sorted() }))
        do {
            try await receiving.add(from: next)
            guard case .queued(let job) = try await receiving.accept() else {
                throw RegistryError.internal(reason: "a push job was admitted as a call event")
            }
            return job
        } catch {
            await receiving.discard()
            throw error
        }
    }

    /// `users` in chunks of `chunkSize`, one at each call.
    static func chunks(of users: [UserID]) -> () -> [UserID]? {
        var start = 0
        return {
            guard start < users.count else { return nil }
            defer { start += chunkSize }
            return Array(users[start..<min(start + chunkSize, users.count)])
        }
    }

    private func full(_ queued: Int) -> EngineError {
        .jobQueueFull(queued: queued, limit: jobs.settings.maxQueued)
    }
}
