import Foundation
import NIOConcurrencyHelpers
import RegistryCore
import RegistryCrypto

/// Everything the mock remembers, behind one lock: registered credentials, scripted replies,
/// issued access tokens, provider-token history and the recorded requests.
final class MockPushState: Sendable {
    struct APNsKey {
        let teamID: String
        let key: VerifyingKey
        /// The `iat` of the provider token in use, and when the mock first saw it: Apple refuses
        /// a new token within 20 minutes of the previous one.
        var currentIssuedAt: Int?
        var currentFirstSeen: Date?
    }

    struct FCMAccount {
        let projectID: String
        let key: VerifyingKey
    }

    struct State {
        var apnsKeys: [String: APNsKey] = [:]
        var fcmAccounts: [String: FCMAccount] = [:]
        /// Access token → (client email, expiry).
        var accessTokens: [String: (clientEmail: String, expiresAt: Date)] = [:]
        /// APNs device token → the kind the device registered it as (`apns` or `voip`); tokens
        /// not listed take any push type, as before the mock knew kinds.
        var tokenTypes: [String: TokenType] = [:]
        var replies: [MockReply] = []
        var requests: [RecordedRequest] = []
        var connections = 0
        var providerTokensAccepted = 0
        var accessTokensIssued = 0
    }

    private let box = NIOLockedValueBox(State())

    func withState<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        try box.withLockedValue(body)
    }

    /// Takes the first scripted reply for `service` that matches `token`, using one of its `times`.
    func takeReply(for service: MockReply.Service, token: String?) -> MockReply? {
        box.withLockedValue { state in
            guard
                let index = state.replies.firstIndex(where: {
                    $0.service == service && ($0.token == nil || $0.token == token)
                })
            else { return nil }
            let reply = state.replies[index]
            state.replies[index].times -= 1
            if state.replies[index].times <= 0 { state.replies.remove(at: index) }
            return reply
        }
    }

    func record(_ request: RecordedRequest) {
        box.withLockedValue { $0.requests.append(request) }
    }

    func registerAPNsKey(teamID: String, keyID: String, publicKey: VerifyingKey) {
        box.withLockedValue { $0.apnsKeys[keyID] = APNsKey(teamID: teamID, key: publicKey) }
    }

    func registerFCMAccount(clientEmail: String, projectID: String, publicKey: VerifyingKey) {
        box.withLockedValue { $0.fcmAccounts[clientEmail] = FCMAccount(projectID: projectID, key: publicKey) }
    }

    func registerToken(_ token: String, type: TokenType) {
        box.withLockedValue { $0.tokenTypes[token] = type }
    }

    func tokenType(_ token: String) -> TokenType? {
        box.withLockedValue { $0.tokenTypes[token] }
    }

    func script(_ reply: MockReply) {
        box.withLockedValue { $0.replies.append(reply) }
    }

    func clearReplies() {
        box.withLockedValue { $0.replies.removeAll() }
    }

    func clearRecordedRequests() {
        box.withLockedValue { $0.requests.removeAll() }
    }

    var recordedRequests: [RecordedRequest] { box.withLockedValue { $0.requests } }

    var statistics: MockPushStatistics {
        box.withLockedValue {
            MockPushStatistics(
                connections: $0.connections, providerTokensAccepted: $0.providerTokensAccepted,
                accessTokensIssued: $0.accessTokensIssued)
        }
    }

    /// Counts an accepted connection and returns its number, from 1.
    func connectionOpened() -> Int {
        box.withLockedValue {
            $0.connections += 1
            return $0.connections
        }
    }
}
