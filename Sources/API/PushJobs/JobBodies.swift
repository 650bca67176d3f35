import CallPush
import Foundation
import HTTPServer
import PushEngine

/// Job-sized bodies handed to the engine: an NDJSON body's first line says what to send, and its
/// users are read as they stream (`JobLines`); the answer is the job, 202.
extension APIContext {
    /// `POST /v1/push-jobs`, and `POST /v1/push` as NDJSON: the push, then its users.
    func receivePushJob(_ body: RequestBodyStream) async throws -> HTTPResponse {
        var lines = JobLines(body)
        let request = try PushJobRequest.parse(try await lines.header(), streamed: true)
        return PushJobBody.accepted(try await engine.receiveJob(request) { try await lines.nextUsers() })
    }

    /// `POST /v1/call-events` as NDJSON: the event without `user_ids`, then its users.
    func receiveCallEventJob(_ body: RequestBodyStream) async throws -> HTTPResponse {
        var lines = JobLines(body)
        let event = try CallEvent.parse(try await lines.header(), arrivedAt: Date(), users: .streamed)
        return Self.answer(try await engine.receiveJob(event) { try await lines.nextUsers() })
    }

    /// The job that sends the event (202), or the event's history when its job has been pruned.
    static func answer(_ job: CallEventJobAnswer) -> HTTPResponse {
        switch job {
        case .job(let job): PushJobBody.accepted(job)
        case .event(let answer): .json(answer)
        }
    }
}
