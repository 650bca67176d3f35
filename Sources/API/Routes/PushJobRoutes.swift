import Foundation
import HTTPServer
import PushEngine
import RegistryCore
import Store

/// Push jobs (`push:send`): `POST /v1/push-jobs` takes a push job as NDJSON, streamed; `GET` shows
/// its progress; `DELETE` cancels it. `POST /v1/push` hands its job-sized bodies to the same
/// intake, and `POST /v1/call-events` its own (`CallEventJobIntake`).
extension APIContext {
    func addPushJobRoutes(to router: inout Router) {
        router.add(
            .POST, "/v1/push-jobs", body: .streamed(contentTypes: JobLines.contentTypes),
            handler: guarded(.pushSend) { request, _ in
                _ = try RequestReading.query(request, allowed: [])
                guard let body = request.bodyStream else {
                    throw Problem(status: .badRequest, title: "Missing body", detail: "send the push, then user ids")
                }
                return try await PushJobIntake(jobs: engine.pushJobs).receive(body)
            })

        router.add(
            .GET, "/v1/push-jobs/{id}",
            handler: guarded(.pushSend) { request, _ in
                _ = try RequestReading.query(request, allowed: [])
                guard let id = Self.jobID(request), let job = try await engine.pushJobs.store.job(id: id) else {
                    throw RegistryError.notFound("push job")
                }
                return .json(PushJobBody(job))
            })

        router.add(
            .DELETE, "/v1/push-jobs/{id}",
            handler: guarded(.pushSend) { request, _ in
                _ = try RequestReading.query(request, allowed: [])
                guard let id = Self.jobID(request), try await engine.pushJobs.store.cancel(id: id) != nil else {
                    throw RegistryError.notFound("push job")
                }
                engine.pushJobs.noteCancelled(id)
                try await waitForClaims(of: id)
                guard let job = try await engine.pushJobs.store.job(id: id) else {
                    throw RegistryError.notFound("push job")
                }
                return .json(PushJobBody(job))
            })
    }

    /// A job id is a UUID; anything else names no job (and never reaches SQL as a bad cast).
    private static func jobID(_ request: HTTPRequest) -> String? {
        UUID(uuidString: request.pathParameters["id"] ?? "").map { $0.uuidString.lowercased() }
    }

    /// Waits until no worker holds a claim on the job's devices: each has recorded what it sent
    /// and given back what it did not start, or its lease ran out (a dead instance). So once the
    /// cancel answers, none of the job's pushes is in flight and none starts. A worker that can
    /// no longer reach the database stops starting pushes when its lease runs out, so the wait is
    /// bounded by the lease plus one push's timeout.
    private func waitForClaims(of id: String) async throws {
        let limit = ContinuousClock.now + engine.pushJobs.settings.lease + engine.pushJobs.settings.pushTimeout
        while try await engine.pushJobs.store.claimedDevices(job: id) > 0 {
            guard ContinuousClock.now < limit else {
                throw RegistryError.unavailable(reason: "push job \(id): claims still held after the cancel")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
