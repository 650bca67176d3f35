import Foundation
import RegistryCore

/// `POST /v1/projects/<project>/messages:send`: the bearer access token must be one the token
/// endpoint issued, for an account of that project; then a scripted reply if one matches; then
/// the message is checked as FCM does (a token, string data values, 4,096 bytes).
struct FCMEndpoint {
    let state: MockPushState
    let now: Date

    static let maximumMessageBytes = 4096

    struct SentBody: Encodable {
        let name: String
    }

    func answer(_ request: MockRequest) -> (MockAnswer, token: String?, credential: String?) {
        let project = request.path.dropFirst("/v1/projects/".count).split(separator: "/").first.map(String.init) ?? ""
        let message = Self.message(in: request.body)
        let token = message?["token"]?.stringValue
        func error(_ status: Int, _ errorCode: String?, _ text: String, field: String? = nil) -> MockAnswer {
            .json(status, GoogleError(status: status, errorCode: errorCode, message: text, field: field))
        }
        guard request.method == "POST", request.path.hasSuffix("/messages:send") else {
            return (error(404, nil, "Requested entity was not found."), token, nil)
        }
        let account: String? = state.withState { state in
            guard let bearer = request.bearerToken, let issued = state.accessTokens[bearer], issued.expiresAt > now
            else { return nil }
            return issued.clientEmail
        }
        guard let account else {
            return (
                error(401, nil, "Request had invalid authentication credentials. Expected OAuth 2 access token."),
                token, nil
            )
        }
        guard state.withState({ $0.fcmAccounts[account]?.projectID }) == project else {
            return (error(403, nil, "Permission 'cloudmessaging.messages.create' denied on resource."), token, account)
        }
        if let reply = state.takeReply(for: .fcm, token: token) {
            var answer =
                reply.status == 200
                ? .json(200, SentBody(name: "projects/\(project)/messages/\(UUID().uuidString.lowercased())"))
                : error(reply.status, reply.reason, reply.reason ?? "scripted", field: reply.field)
            if let retryAfter = reply.retryAfter { answer.headers.append(("retry-after", String(retryAfter))) }
            answer.delay = reply.delayMilliseconds.map { .milliseconds($0) }
            answer.connectionAction = reply.connection
            return (answer, token, account)
        }
        guard let message, let token, !token.isEmpty else {
            return (
                error(
                    400, "INVALID_ARGUMENT", "The registration token is not a valid FCM registration token",
                    field: "message.token"),
                token, account
            )
        }
        if let data = message["data"] {
            guard let fields = data.objectValue, fields.values.allSatisfy({ $0.stringValue != nil }) else {
                return (
                    error(
                        400, "INVALID_ARGUMENT", "Invalid value at 'message.data': values must be strings",
                        field: "message.data"),
                    token, account
                )
            }
        }
        // The limit is the message's; the token and the `{"message":…}` wrapper do not count.
        if request.body.count - token.utf8.count - 16 > Self.maximumMessageBytes {
            return (error(400, "INVALID_ARGUMENT", "Message is too big", field: "message"), token, account)
        }
        return (
            .json(200, SentBody(name: "projects/\(project)/messages/\(UUID().uuidString.lowercased())")), token, account
        )
    }

    static func message(in body: [UInt8]) -> [String: JSONValue]? {
        guard let value = body.withUnsafeBytes({ try? JSONParser.parse($0) }) else { return nil }
        return value.objectValue?["message"]?.objectValue
    }
}
