import Foundation
import RegistryCrypto

/// `POST /3/device/<token>`, checked the way APNs documents: provider token first (ES256 over a
/// registered key; `kid`, `iss` = team id, `iat` no older than an hour and not renewed more
/// often than every 20 minutes) or, without one, the client certificate of the connection
/// (trusted in the handshake; `apns-topic` must be one of its topics), then a scripted reply if
/// one matches, then the headers and payload.
struct APNsEndpoint {
    let state: MockPushState
    let now: Date

    static let tokenLifetime: TimeInterval = 3600
    static let renewalFloor: TimeInterval = 20 * 60
    static let pushTypes: Set = [
        "alert", "background", "voip", "complication", "fileprovider", "mdm", "location", "liveactivity", "pushtotalk",
        "widgets", "controls",
    ]

    struct ProviderClaims: Decodable {
        let iss: String
        let iat: Int
    }

    func answer(_ request: MockRequest) -> (MockAnswer, token: String, credential: String?) {
        let token = String(request.path.dropFirst("/3/device/".count))
        let apnsID = request.header("apns-id") ?? UUID().uuidString.lowercased()
        func error(_ status: Int, _ reason: String, timestamp: Int64? = nil, retryAfter: Int? = nil) -> MockAnswer {
            var headers = [("apns-id", apnsID)]
            if let retryAfter { headers.append(("retry-after", String(retryAfter))) }
            return .json(status, APNsErrorBody(reason: reason, timestamp: timestamp), headers: headers)
        }
        guard request.method == "POST" else { return (error(405, "MethodNotAllowed"), token, nil) }
        var verdict = verifyProviderToken(request)
        if request.bearerToken == nil, request.clientCertificateTopics != nil {
            verdict = (verifyClientCertificate(request), nil)
        }
        let (failure, providerToken) = verdict
        let credential =
            providerToken.map { "kid=\($0.keyID) iss=\($0.claims.iss) iat=\($0.claims.iat)" }
            ?? request.clientCertificateTopics.map { "certificate topics=\($0.joined(separator: ","))" }
        if let failure { return (error(failure.status, failure.reason), token, credential) }
        if let reply = state.takeReply(for: .apns, token: token) {
            if reply.reason == "ExpiredProviderToken", let providerToken { forgetProviderToken(providerToken.keyID) }
            var answer =
                reply.status == 200
                ? .empty(200, headers: [("apns-id", apnsID)])
                : error(reply.status, reply.reason ?? "", timestamp: reply.timestamp, retryAfter: reply.retryAfter)
            answer.delay = reply.delayMilliseconds.map { .milliseconds($0) }
            answer.connectionAction = reply.connection
            return (answer, token, credential)
        }
        if let reason = problem(in: request, token: token) {
            return (error(reason == "PayloadTooLarge" ? 413 : 400, reason), token, credential)
        }
        return (.empty(200, headers: [("apns-id", apnsID)]), token, credential)
    }

    /// Nil failure when the provider token is good; its key id and claims either way once the
    /// token could be read.
    private func verifyProviderToken(_ request: MockRequest)
        -> ((status: Int, reason: String)?, (keyID: String, claims: ProviderClaims)?)
    {
        guard let text = request.bearerToken else { return ((403, "MissingProviderToken"), nil) }
        guard let jws = CompactJWS(parsing: text), let keyID = jws.header.keyID,
            let claims = jws.payload(as: ProviderClaims.self)
        else { return ((403, "InvalidProviderToken"), nil) }
        let failure: (Int, String)? = state.withState { state in
            guard let registered = state.apnsKeys[keyID], registered.teamID == claims.iss,
                jws.isSigned(by: registered.key)
            else { return (403, "InvalidProviderToken") }
            let issuedAt = Date(timeIntervalSince1970: TimeInterval(claims.iat))
            guard issuedAt <= now.addingTimeInterval(60) else { return (403, "InvalidProviderToken") }
            guard now.timeIntervalSince(issuedAt) <= Self.tokenLifetime else { return (403, "ExpiredProviderToken") }
            if registered.currentIssuedAt != claims.iat {
                if let firstSeen = registered.currentFirstSeen, now.timeIntervalSince(firstSeen) < Self.renewalFloor {
                    return (429, "TooManyProviderTokenUpdates")
                }
                state.apnsKeys[keyID]?.currentIssuedAt = claims.iat
                state.apnsKeys[keyID]?.currentFirstSeen = now
                state.providerTokensAccepted += 1
            }
            return nil
        }
        return (failure.map { (status: $0.0, reason: $0.1) }, (keyID, claims))
    }

    /// Certificate authentication: the handshake verified the certificate; APNs answers a topic
    /// it does not cover `TopicDisallowed`.
    private func verifyClientCertificate(_ request: MockRequest) -> (status: Int, reason: String)? {
        guard let topic = request.header("apns-topic"), let topics = request.clientCertificateTopics,
            topics.contains(topic)
        else { return (400, "TopicDisallowed") }
        return nil
    }

    /// A scripted `ExpiredProviderToken` declares the current token expired, so the renewal that
    /// follows is not "too many updates".
    private func forgetProviderToken(_ keyID: String) {
        state.withState { $0.apnsKeys[keyID]?.currentFirstSeen = nil }
    }

    private func problem(in request: MockRequest, token: String) -> String? {
        guard token.count >= 64, token.count % 2 == 0, token.allSatisfy(\.isHexDigit) else { return "BadDeviceToken" }
        guard let topic = request.header("apns-topic"), !topic.isEmpty else { return "MissingTopic" }
        let pushType = request.header("apns-push-type") ?? "alert"
        guard Self.pushTypes.contains(pushType) else { return "InvalidPushType" }
        if (pushType == "voip") != topic.hasSuffix(".voip") { return "BadTopic" }
        // What Apple answers an alert to a PushKit token or a VoIP push to an alert token; the
        // real service then treats the token as not for this app, which is why a sender must not.
        if let type = state.tokenType(token), (type == .voip) != (pushType == "voip") {
            return "DeviceTokenNotForTopic"
        }
        if let priority = request.header("apns-priority"), !["10", "5", "1"].contains(priority) {
            return "BadPriority"
        }
        if let id = request.header("apns-id"), UUID(uuidString: id) == nil { return "BadMessageId" }
        if let expiration = request.header("apns-expiration"), Int64(expiration) == nil { return "BadExpirationDate" }
        if let collapseID = request.header("apns-collapse-id"), collapseID.utf8.count > 64 { return "BadCollapseId" }
        if request.body.isEmpty { return "PayloadEmpty" }
        if request.body.count > (pushType == "voip" ? 5120 : 4096) { return "PayloadTooLarge" }
        return nil
    }
}

/// `{"reason": …, "timestamp": …}` as APNs sends it.
struct APNsErrorBody: Encodable {
    let reason: String
    let timestamp: Int64?
}
