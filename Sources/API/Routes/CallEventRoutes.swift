import CallPush
import Foundation
import HTTPServer
import PushEngine
import RegistryCore

/// `POST /v1/call-events` (`push:send`): one call event in, every device of its users woken in
/// its app's format, once per event id across instances; more than 1,000 users, `"async": true`
/// or an NDJSON body make a push job (`receiveCallEventJob`). `GET /v1/call-events/{id}`: what
/// each device got (or the job that sends it), for as long as call events are kept.
extension APIContext {
    func addCallEventRoutes(to router: inout Router) {
        router.add(
            .POST, "/v1/call-events", body: .jsonOrStreamed(streamedTypes: JobLines.contentTypes),
            bodyLimit: JobLines.jsonBodyLimit,
            handler: guarded(.pushSend) { request, _ in
                _ = try RequestReading.query(request, allowed: [])
                if let stream = request.bodyStream { return try await receiveCallEventJob(stream) }
                let body = try RequestReading.json(request)
                if CallEvent.isJob(body) {
                    let event = try CallEvent.parse(body, arrivedAt: Date(), users: .job)
                    return Self.answer(try await engine.receiveJob(event))
                }
                return .json(try await engine.post(try CallEvent.parse(body, arrivedAt: Date())))
            })

        router.add(
            .GET, "/v1/call-events/{id}",
            handler: guarded(.pushSend) { request, _ in
                _ = try RequestReading.query(request, allowed: [])
                // Event ids follow user ids' rules; one that breaks them was never stored.
                guard let id = try? UserID(request.pathParameters["id"] ?? "").value,
                    let answer = try await engine.callEvent(id: id)
                else { throw RegistryError.notFound("call event") }
                return .json(answer)
            })
    }
}
