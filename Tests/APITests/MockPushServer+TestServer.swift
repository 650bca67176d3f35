import Foundation
import PushDelivery
import PushRules
import PushTestSupport
import TestSupport
import Testing

/// A test server and the mock APNs/FCM it sends to.
struct PushServerSetup {
    let server: TestServer
    let mock: MockPushFixture
}

/// A server trusting the mock's CA, with `ios` (APNs, topic `com.example.app`) and `android`
/// (FCM) providers whose credentials the mock knows, both pointed at the mock. `configure` adds
/// to the server's options.
func withMockPushServer(
    configure: (inout TestServer.Options) throws -> Void = { _ in }, _ body: (PushServerSetup) async throws -> Void
) async throws {
    let mock = try await MockPushFixture.start()
    var options = TestServer.Options()
    options.pushCAFile = mock.certificates.caFile
    options.sender = SenderConfiguration(
        maximumConnections: 2, connectTimeout: .seconds(5), attemptTimeout: .seconds(5),
        retryPolicy: RetryPolicy(initialDelay: .milliseconds(20), maximumDelay: .milliseconds(200), maximumAttempts: 3),
        pingTimeout: options.sender.pingTimeout)
    do {
        try configure(&options)
        try await withTestServer(options) { server in
            let ios = try await server.request(
                "PUT", "/v1/providers/ios",
                json: [
                    "service": "apns", "topic": "com.example.app", "endpoint": mock.baseURL,
                    "credentials": [
                        "team_id": mock.teamID, "key_id": mock.keyID, "private_key": try mock.apnsKey.pkcs8PEM(),
                    ],
                ])
            #expect(ios.status == 201, "\(ios.body)")
            let account = try JSONSerialization.jsonObject(with: Data(try mock.serviceAccountJSON().utf8))
            let android = try await server.request(
                "PUT", "/v1/providers/android",
                json: [
                    "service": "fcm", "project_id": mock.projectID, "endpoint": mock.baseURL,
                    "credentials": ["service_account": account],
                ])
            #expect(android.status == 201, "\(android.body)")
            try await body(PushServerSetup(server: server, mock: mock))
        }
    } catch {
        try await mock.stop()
        throw error
    }
    try await mock.stop()
}
