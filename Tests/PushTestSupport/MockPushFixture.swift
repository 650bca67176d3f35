import Foundation
import MockPush
import RegistryCrypto

/// A running mock push server over TLS with a test CA, one APNs key and one FCM service account
/// registered, all generated for this test. `stop()` removes everything.
public struct MockPushFixture: Sendable {
    public let certificates: TestCertificates
    public let server: MockPushServer
    public let apnsKey: SigningKey
    public let teamID = "ABCDE12345"
    public let keyID = "XYZ987WVU6"
    public let fcmKey: SigningKey
    public let clientEmail = "sender@example-project.iam.gserviceaccount.com"
    public let projectID = "example-project"

    /// With `clientCertificates`, APNs takes certificate authentication from certificates their
    /// CA issued, and refuses the handshake of any other client certificate.
    public static func start(
        maximumConcurrentStreams: Int = 1000, clientCertificates: TestClientCertificates? = nil
    ) async throws -> MockPushFixture {
        let certificates = try TestCertificates.make()
        let server = try await MockPushServer.start(
            MockPushServer.Configuration(
                certificateChainFile: certificates.serverCertificateFile, privateKeyFile: certificates.serverKeyFile,
                maximumConcurrentStreams: maximumConcurrentStreams, clientCAFile: clientCertificates?.caFile))
        let fixture = MockPushFixture(
            certificates: certificates, server: server, apnsKey: try SigningKey.generate(.es256),
            fcmKey: try SigningKey.generate(.rs256))
        server.registerAPNsKey(
            teamID: fixture.teamID, keyID: fixture.keyID, publicKey: try fixture.apnsKey.verifyingKey())
        server.registerFCMAccount(
            clientEmail: fixture.clientEmail, projectID: fixture.projectID, publicKey: try fixture.fcmKey.verifyingKey()
        )
        return fixture
    }

    /// `https://localhost:<port>`: the host name the test certificate is issued for.
    public var baseURL: String { "https://localhost:\(server.port)" }

    public var tokenURI: String { baseURL + "/token" }

    public func stop() async throws {
        try await server.shutdown()
        certificates.remove()
    }

    /// A service account JSON as Google issues it, pointing its `token_uri` at the mock.
    public func serviceAccountJSON() throws -> String {
        let account: [String: String] = [
            "type": "service_account", "project_id": projectID, "private_key_id": "test-key-1",
            "private_key": try fcmKey.pkcs8PEM(), "client_email": clientEmail, "token_uri": tokenURI,
        ]
        return String(
            decoding: try JSONSerialization.data(withJSONObject: account, options: [.sortedKeys]), as: UTF8.self)
    }
}
