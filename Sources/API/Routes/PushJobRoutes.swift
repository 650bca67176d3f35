import Foundation
import HTTPServer
import PushEngine
import RegistryCore
import Store

/// Push jobs (`push:send`): `POST /v1/push-jobs` takes a push job as NDJSON, streamed; `GET` shows
/// its progress; `DELETE` cancels it. `POST /v1/push` hands its job-sized bodies to the same
/// intake, and `POST /v1/call-events` its own (`receiveCallEventJob`).
extension APIContext {
    func addPushJobRoutes(to router: inout Router) {
        router.add(
            .POST, "/v1/push-jobs", body: .streamed(contentTypes: JobLines.contentTypes),
            handler: guarded(.pushSend) { request, _ in
                _ = try RequestReading.query(request, allowed: [])
                guard let body = request.bodyStream else {
                    throw APIFailure.missingBody(detail: "send the push, then user ids")
                }
                return try await receivePushJob(body)
            })

        router.add(
            .GET, "/v1/push-jobs/{id}",
            handler: guarded(.pushSend) { request, _ in
                _ = try RequestReading.query(request, allowed: [])
                guard let id = Self.jobID(request), let job = try await engine.job(id: id) else {
                    throw RegistryError.notFound("push job")
                }
                return .json(PushJobBody(job))
            })

        router.add(
            .DELETE, "/v1/push-jobs/{id}",
            handler: guarded(.pushSend) { request, _ in
                _ = try RequestReading.query(request, allowed: [])
                guard let id = Self.jobID(request), let job = try await engine.cancelJob(id: id) else {
                    throw RegistryError.notFound("push job")
                }
                return .json(PushJobBody(job))
            })
    }

    /// A job id is a UUID; anything else names no job (and never reaches SQL as a bad cast).
    private static func jobID(_ request: HTTPRequest) -> String? {
        UUID(uuidString: request.pathParameters["id"] ?? "").map { $0.uuidString.lowercased() }
    }
}
