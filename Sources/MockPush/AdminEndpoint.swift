import Foundation
import RegistryCore
import RegistryCrypto

/// `/_mock/…`: how a test or a developer registers credentials, scripts replies and reads what
/// the mock recorded, over the same TLS port.
///
/// | request                       | body / answer                                              |
/// |-------------------------------|------------------------------------------------------------|
/// | POST /_mock/apns-keys         | `{"team_id","key_id","public_key"}` (PEM) → 204            |
/// | POST /_mock/fcm-accounts      | `{"client_email","project_id","public_key"}` (PEM) → 204   |
/// | POST /_mock/tokens            | `{"token","type"}` (`apns` or `voip`): the token's kind → 204|
/// | POST /_mock/replies           | a `MockReply` → 204                                        |
/// | DELETE /_mock/replies         | forget scripted replies → 204                              |
/// | GET /_mock/requests           | every `RecordedRequest`, oldest first                      |
/// | DELETE /_mock/requests        | forget them → 204                                          |
/// | GET /_mock/stats              | connections, provider tokens accepted, access tokens issued|
struct AdminEndpoint {
    let state: MockPushState

    struct APNsKeyBody: Decodable {
        let teamID: String
        let keyID: String
        let publicKey: String

        enum CodingKeys: String, CodingKey {
            case teamID = "team_id"
            case keyID = "key_id"
            case publicKey = "public_key"
        }
    }

    struct FCMAccountBody: Decodable {
        let clientEmail: String
        let projectID: String
        let publicKey: String

        enum CodingKeys: String, CodingKey {
            case clientEmail = "client_email"
            case projectID = "project_id"
            case publicKey = "public_key"
        }
    }

    struct TokenBody: Decodable {
        let token: String
        let type: TokenType
    }

    struct Problem: Encodable {
        let error: String
    }

    func answer(_ request: MockRequest) -> MockAnswer {
        let decoder = JSONDecoder()
        do {
            switch (request.method, request.path) {
            case ("POST", "/_mock/apns-keys"):
                let body = try decoder.decode(APNsKeyBody.self, from: Data(request.body))
                state.registerAPNsKey(
                    teamID: body.teamID, keyID: body.keyID,
                    publicKey: try VerifyingKey(pem: body.publicKey, algorithm: .es256))
            case ("POST", "/_mock/fcm-accounts"):
                let body = try decoder.decode(FCMAccountBody.self, from: Data(request.body))
                state.registerFCMAccount(
                    clientEmail: body.clientEmail, projectID: body.projectID,
                    publicKey: try VerifyingKey(pem: body.publicKey, algorithm: .rs256))
            case ("POST", "/_mock/tokens"):
                let body = try decoder.decode(TokenBody.self, from: Data(request.body))
                guard body.type != .fcm else {
                    return .json(400, Problem(error: "type must be apns or voip: FCM tokens have one kind"))
                }
                state.registerToken(body.token, type: body.type)
            case ("POST", "/_mock/replies"):
                state.script(try decoder.decode(MockReply.self, from: Data(request.body)))
            case ("DELETE", "/_mock/replies"):
                state.clearReplies()
            case ("GET", "/_mock/requests"):
                return .json(200, state.recordedRequests)
            case ("DELETE", "/_mock/requests"):
                state.clearRecordedRequests()
            case ("GET", "/_mock/stats"):
                return .json(200, state.statistics)
            default:
                return .json(404, Problem(error: "no such mock admin route: \(request.method) \(request.path)"))
            }
            return .empty(204)
        } catch {
            return .json(400, Problem(error: "\(error)"))
        }
    }
}
