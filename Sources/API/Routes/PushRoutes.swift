import Foundation
import HTTPServer
import PushEngine
import PushRules
import RegistryCore
import Store

/// `POST /v1/push` (`push:send`): sends to every device of the users named, and answers with
/// each device's outcome once every device has one or the deadline has passed. A body with more
/// than 1,000 users or `"async": true`, or an NDJSON one, becomes a push job instead (202, see
/// `receivePushJob`).
extension APIContext {
    func addPushRoutes(to router: inout Router) {
        router.add(
            .POST, "/v1/push", body: .jsonOrStreamed(streamedTypes: JobLines.contentTypes),
            bodyLimit: JobLines.jsonBodyLimit,
            handler: guarded(.pushSend) { request, _ in
                _ = try RequestReading.query(request, allowed: [])
                if let stream = request.bodyStream { return try await receivePushJob(stream) }
                let body = try RequestReading.json(request)
                if PushJobRequest.isJob(body) {
                    return PushJobBody.accepted(try await engine.receiveJob(try PushJobRequest.parse(body)))
                }
                let push = try PushRequest.parse(PushJobRequest.synchronous(body), now: Date())
                let results = try await engine.push(push)
                return .json(PushResultsBody(results: results))
            })
    }
}
