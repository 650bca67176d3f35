import CallPush
import Foundation
import HTTPServer
import RegistryCore

/// `POST /v1/call-events` (`push:send`): one call event in, every device of its users woken in
/// its app's format, once per event id across instances; `GET /v1/call-events/{id}`: what each
/// device got, for as long as call events are kept.
extension APIContext {
    func addCallEventRoutes(to router: inout Router) {
        router.add(
            .POST, "/v1/call-events", body: .json,
            handler: guarded(.pushSend) { request, _ in
                _ = try RequestReading.query(request, allowed: [])
                let event = try CallEvent.parse(try RequestReading.json(request), arrivedAt: Date())
                return .json(try await CallEventDispatch(context: self).post(event))
            })

        router.add(
            .GET, "/v1/call-events/{id}",
            handler: guarded(.pushSend) { request, _ in
                _ = try RequestReading.query(request, allowed: [])
                // Event ids follow user ids' rules; one that breaks them was never stored.
                guard let id = try? UserID(request.pathParameters["id"] ?? "").value,
                    let row = try await callEvents.find(id: id)
                else { throw RegistryError.notFound("call event") }
                return .json(try CallEventAnswer(row, duplicate: nil))
            })
    }
}
