import Foundation
import HTTPServer
import PushEngine
import PushRules
import RegistryCore
import Store

/// Takes a job in: the job row, then its devices `chunkSize` users at a time (each user's
/// devices resolved once, here, so counts are per device from the start), then the hand-over to
/// the workers, which is where the queue limit is enforced. The answer is 202 only after that
/// hand-over committed; anything that fails before it deletes the job.
struct PushJobIntake {
    static let chunkSize = 10_000
    static let retryAfterSeconds = 30
    /// What `POST /v1/push` and `POST /v1/call-events` may carry as JSON: some 200,000 user ids.
    /// More go as NDJSON (`JobLines`), which is read as it streams.
    static let jsonBodyLimit = 4 * 1024 * 1024

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

        func add(_ users: [UserID]) async throws {
            guard !users.isEmpty else { return }
            _ = try await intake.jobs.store.addRecipients(
                job: id, users: users, types: job.types, providers: job.providers)
        }

        /// Hands the job to the workers, for `callEvent` when given (`PushJobStore.enqueue`): the
        /// queued job, or the row holding the event's id. A full queue is a 503 with `Retry-After`.
        func accept(as callEvent: CallEventHandOver? = nil) async throws -> PushJobStore.Admission {
            let admission = try await intake.jobs.store.enqueue(
                job: id, maxQueued: intake.jobs.settings.maxQueued, callEvent: callEvent)
            if case .full(let queued) = admission { throw intake.full(queued) }
            return admission
        }

        func discard() async {
            try? await intake.jobs.store.discard(job: id)
        }
    }

    /// Starts receiving a job, unless the queue is already full (503).
    func begin(_ job: Job) async throws -> Receiving {
        let queued = try await jobs.store.queuedRecipients()
        if queued >= jobs.settings.maxQueued { throw full(queued) }
        let id = try await jobs.store.begin(kind: job.kind, payload: job.payload, deadline: job.deadline)
        return Receiving(id: id, intake: self, job: job)
    }

    /// A push job: `feed` adds the users (`Receiving.add`, as often as it likes); the answer is
    /// the job.
    func receive(_ request: PushJobRequest, feed: (Receiving) async throws -> Void) async throws -> HTTPResponse {
        let receiving = try await begin(
            Job(
                kind: PushJobRequest.kind,
                payload: String(decoding: PushRequest.compactJSON(.object(request.payload)), as: UTF8.self),
                deadline: Date().addingTimeInterval(request.deadline.timeInterval),
                types: request.push.types.map { $0.map(\.rawValue).sorted() },
                providers: request.push.providers.map { $0.map(\.value).sorted() }))
        do {
            try await feed(receiving)
            guard case .queued(let job) = try await receiving.accept() else {
                throw RegistryError.internal(reason: "a push job was admitted as a call event")
            }
            return Self.accepted(job)
        } catch {
            await receiving.discard()
            throw error
        }
    }

    /// Every user of a JSON body, `chunkSize` at a time.
    func receive(_ request: PushJobRequest) async throws -> HTTPResponse {
        try await receive(request) { receiving in
            for chunk in Self.chunks(of: request.users) { try await receiving.add(Array(chunk)) }
        }
    }

    /// An NDJSON body: the push, then its users.
    func receive(_ body: RequestBodyStream) async throws -> HTTPResponse {
        var lines = JobLines(body)
        let request = try PushJobRequest.parse(try await lines.header(), streamed: true)
        return try await receive(request) { receiving in
            while let users = try await lines.nextUsers() { try await receiving.add(users) }
        }
    }

    /// 202 with the job and where to follow it.
    static func accepted(_ job: PushJob) -> HTTPResponse {
        .json(PushJobBody(job), status: .accepted, headers: ["Location": "/v1/push-jobs/\(job.id)"])
    }

    static func chunks(of users: [UserID]) -> [ArraySlice<UserID>] {
        stride(from: 0, to: users.count, by: chunkSize).map { users[$0..<min($0 + chunkSize, users.count)] }
    }

    private func full(_ queued: Int) -> EngineError {
        .jobQueueFull(queued: queued, limit: jobs.settings.maxQueued)
    }
}
