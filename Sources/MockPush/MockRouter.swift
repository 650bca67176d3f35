import Foundation

/// Sends each request to its endpoint by path and records what was answered.
struct MockRouter: Sendable {
    let state: MockPushState

    func respond(to request: MockRequest) -> MockAnswer {
        let now = Date()
        let answer: MockAnswer
        let endpoint: RecordedRequest.Endpoint
        let token: String?
        let credential: String?
        if request.path.hasPrefix("/_mock/") {
            return AdminEndpoint(state: state).answer(request)
        } else if request.path.hasPrefix("/3/device/") {
            endpoint = .apns
            (answer, token, credential) = APNsEndpoint(state: state, now: now).answer(request)
        } else if request.path.hasPrefix("/v1/projects/") {
            endpoint = .fcm
            (answer, token, credential) = FCMEndpoint(state: state, now: now).answer(request)
        } else if request.path == "/token" {
            endpoint = .oauth
            token = nil
            (answer, credential) = OAuthEndpoint(state: state, now: now).answer(request)
        } else {
            return .empty(404)
        }
        state.record(
            RecordedRequest(
                endpoint: endpoint, connection: request.connection, method: request.method, path: request.path,
                headers: request.headers.filter { $0.key != "authorization" }, deviceToken: token,
                credential: credential,
                // The token request's body is the signed assertion: a credential, so not kept.
                body: endpoint == .oauth ? "" : String(decoding: request.body, as: UTF8.self),
                status: answer.connectionAction == nil ? answer.status : 0,
                reason: Self.reason(in: answer), receivedAt: now))
        return answer
    }

    /// The APNs `reason` or FCM error code of an error answer, for the record.
    private static func reason(in answer: MockAnswer) -> String? {
        if let action = answer.connectionAction { return action.rawValue }
        guard answer.status != 200,
            let object = try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]
        else { return nil }
        if let reason = object["reason"] as? String { return reason }
        let error = object["error"] as? [String: Any]
        let details = error?["details"] as? [[String: Any]] ?? []
        return details.lazy.compactMap { $0["errorCode"] as? String }.first ?? (error?["status"] as? String)
            ?? (object["error"] as? String)
    }
}
