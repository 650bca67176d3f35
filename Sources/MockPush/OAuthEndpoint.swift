import Foundation
import RegistryCrypto

/// Google's OAuth 2.0 token endpoint for service accounts (RFC 7523 JWT bearer grant): checks
/// the RS256 assertion against the registered account's public key, its `aud` (this endpoint's
/// own URL), `scope` and lifetime, and answers a bearer access token valid for an hour.
struct OAuthEndpoint {
    let state: MockPushState
    let now: Date

    static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    static let messagingScope = "https://www.googleapis.com/auth/firebase.messaging"
    static let accessTokenLifetime: TimeInterval = 3600

    struct AssertionClaims: Decodable {
        let iss: String
        let scope: String
        let aud: String
        let iat: Int
        let exp: Int
    }

    struct TokenBody: Encodable {
        let accessToken: String
        let expiresIn: Int
        let tokenType = "Bearer"

        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
            case expiresIn = "expires_in"
            case tokenType = "token_type"
        }
    }

    struct ErrorBody: Encodable {
        let error: String
        let errorDescription: String

        enum CodingKeys: String, CodingKey {
            case error
            case errorDescription = "error_description"
        }
    }

    func answer(_ request: MockRequest) -> (MockAnswer, credential: String?) {
        func refuse(_ error: String, _ description: String) -> MockAnswer {
            .json(400, ErrorBody(error: error, errorDescription: description))
        }
        let form = Self.formFields(request.body)
        guard request.method == "POST", form["grant_type"] == Self.grantType else {
            return (refuse("unsupported_grant_type", "Invalid grant_type"), nil)
        }
        guard let assertion = form["assertion"].flatMap(CompactJWS.init(parsing:)),
            let claims = assertion.payload(as: AssertionClaims.self)
        else { return (refuse("invalid_grant", "Invalid JWT"), nil) }
        let key = state.withState { $0.fcmAccounts[claims.iss]?.key }
        guard let key, assertion.isSigned(by: key) else {
            return (refuse("invalid_grant", "Invalid JWT Signature."), claims.iss)
        }
        guard claims.aud == "https://\(request.header("host") ?? "")\(request.path)" else {
            return (refuse("invalid_grant", "Invalid JWT: Failed audience check."), claims.iss)
        }
        guard claims.scope.split(separator: " ").contains(Substring(Self.messagingScope)) else {
            return (refuse("invalid_scope", "Invalid OAuth scope or ID token audience provided."), claims.iss)
        }
        let issued = TimeInterval(claims.iat)
        let expires = TimeInterval(claims.exp)
        guard issued <= now.timeIntervalSince1970 + 60, expires > now.timeIntervalSince1970, expires - issued <= 3600
        else {
            return (
                refuse(
                    "invalid_grant",
                    "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe."),
                claims.iss
            )
        }
        let accessToken = "mock-access-" + UUID().uuidString.lowercased()
        state.withState { state in
            state.accessTokens[accessToken] = (claims.iss, now.addingTimeInterval(Self.accessTokenLifetime))
            state.accessTokensIssued += 1
        }
        return (
            .json(200, TokenBody(accessToken: accessToken, expiresIn: Int(Self.accessTokenLifetime) - 1)), claims.iss
        )
    }

    /// `application/x-www-form-urlencoded` fields.
    static func formFields(_ body: [UInt8]) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        return fields
    }
}
