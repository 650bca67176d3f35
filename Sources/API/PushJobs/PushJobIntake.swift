import Foundation
import HTTPServer
import PushRules
import RegistryCore
import Store

/// Takes a job in: the job row, then its devices `chunkSize` users at a time (each user's
/// devices resolved once, here, so counts are per device from the start), then the hand-over to
/// the workers, which is where the queue limit is enforced. The answer is 202 only after that
/// hand-over committed; anything that fails before it deletes the job.
struct PushJobIntake {
    static let chunkSize = 10_000

    let jobs: PushJobs

    /// One job being received.
    struct Receiving {
        let id: String
        fileprivate let intake: PushJobIntake
        fileprivate let types: [String]?
        fileprivate let providers: [String]?

        func add(_ users: [UserID]) async throws {
            guard !users.isEmpty else { return }
            _ = try await intake.jobs.store.addRecipients(job: id, users: users, types: types, providers: providers)
        }
    }

    /// `feed` adds the users (`Receiving.add`, as often as it likes); the answer is the job.
    func receive(_ request: PushJobRequest, feed: (Receiving) async throws -> Void) async throws -> HTTPResponse {
        let store = jobs.store
        let queued = try await store.queuedRecipients()
        if queued >= jobs.settings.maxQueued { throw full(queued) }
        let id = try await store.begin(
            kind: PushJobRequest.kind,
            payload: String(decoding: PushRequest.compactJSON(.object(request.payload)), as: UTF8.self),
            deadline: Date().addingTimeInterval(request.deadline.timeInterval))
        let receiving = Receiving(
            id: id, intake: self, types: request.push.types.map { $0.map(\.rawValue).sorted() },
            providers: request.push.providers.map { $0.map(\.value).sorted() })
        do {
            try await feed(receiving)
            switch try await store.enqueue(job: id, maxQueued: jobs.settings.maxQueued) {
            case .queued(let job):
                return .json(PushJobBody(job), status: .accepted, headers: ["Location": "/v1/push-jobs/\(job.id)"])
            case .full(let queued):
                throw full(queued)
            }
        } catch {
            try? await store.discard(job: id)
            throw error
        }
    }

    /// Every user of a JSON body, `chunkSize` at a time.
    func receive(_ request: PushJobRequest) async throws -> HTTPResponse {
        try await receive(request) { receiving in
            var start = 0
            while start < request.users.count {
                let end = min(start + Self.chunkSize, request.users.count)
                try await receiving.add(Array(request.users[start..<end]))
                start = end
            }
        }
    }

    private func full(_ queued: Int) -> Problem {
        Problem(
            status: .serviceUnavailable, title: "Push job queue full",
            detail:
                "\(queued) devices are queued in push jobs; at most \(jobs.settings.maxQueued) may be. Retry later.",
            headers: ["Retry-After": "\(Self.retryAfterSeconds)"])
    }

    static let retryAfterSeconds = 30
}
