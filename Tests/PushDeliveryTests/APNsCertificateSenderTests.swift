import Foundation
import MockPush
import PushRules
import PushTestSupport
import Testing

@testable import PushDelivery

/// APNs certificate authentication against the mock requiring client certificates, over real
/// TLS (mutual) and HTTP/2.
@Suite struct APNsCertificateSenderTests {
    /// A mock trusting `trusted`'s client CA, and a sender presenting a certificate issued by
    /// `trusted` or, when `trustedIssuer` is false, by a CA the mock does not know.
    func withSender(
        trustedIssuer: Bool = true, _ body: (MockPushFixture, APNsSender) async throws -> Void
    ) async throws {
        let trusted = try TestClientCertificates.make()
        let unknown = try TestClientCertificates.make()
        defer {
            trusted.remove()
            unknown.remove()
        }
        let fixture = try await MockPushFixture.start(clientCertificates: trusted)
        let issued = try (trustedIssuer ? trusted : unknown).issue("sender")
        let certificate = try APNsClientCertificate(
            certificatePEM: try issued.certificatePEM(), privateKeyPEM: try issued.privateKeyPEM())
        let endpoint = try PushEndpoint(fixture.baseURL)
        let sender = APNsSender(
            certificateTLS: try PushTLS.makeContext(
                additionalCAFile: fixture.certificates.caFile, identity: certificate),
            bundleID: "com.example.app", production: endpoint, sandbox: endpoint, configuration: APNsSenderTests.fast)
        // Shut down whatever the body did, then report it.
        let outcome: Result<Void, any Error>
        do { outcome = .success(try await body(fixture, sender)) } catch { outcome = .failure(error) }
        await sender.shutdown()
        try await fixture.stop()
        try outcome.get()
    }

    @Test func aTrustedCertificateSendsVoIPAndAlertPushesWithoutAProviderToken() async throws {
        try await withSender { fixture, sender in
            for options in [try APNsSenderTests.voip(), try APNsSendOptions(pushType: .alert, priority: 10)] {
                let result = await sender.send(
                    APNsSenderTests.payload, to: APNsSenderTests.token, environment: .production, options: options,
                    deadline: APNsSenderTests.deadline())
                guard case .sent = result.status else {
                    Issue.record("not sent: \(result)")
                    return
                }
            }
            let recorded = fixture.server.recordedRequests
            #expect(recorded.map { $0.headers["apns-topic"] } == ["com.example.app.voip", "com.example.app"])
            #expect(recorded.allSatisfy { $0.credential?.hasPrefix("certificate topics=com.example.app,") == true })
            #expect(await sender.statistics.credentialsIssued == 0)
        }
    }

    @Test func aCertificateTheServiceDoesNotTrustIsAnAuthFailureWithoutRetries() async throws {
        try await withSender(trustedIssuer: false) { fixture, sender in
            let result = await sender.send(
                APNsSenderTests.payload, to: APNsSenderTests.token, environment: .production,
                options: try APNsSenderTests.voip(), deadline: APNsSenderTests.deadline())
            #expect(result == DeliveryResult(status: .authFailed(reason: "ClientCertificateRefused"), attempts: 1))
            #expect(fixture.server.recordedRequests.isEmpty)
        }
    }
}
