import Foundation
import PushTestSupport
import RegistryCrypto
import TestSupport
import Testing

/// `mock-push` as a developer runs it: certificate files, a `.p8` key, a port.
@Suite struct MockPushCommandTests {
    struct Claims: Encodable {
        let iss: String
        let iat: Int
    }

    @Test func servesAPNsWithTheGivenKeyAndAnswersTheAdminRoutes() async throws {
        let certificates = try TestCertificates.make()
        defer { certificates.remove() }
        let key = try SigningKey.generate(.es256)
        let keyFile = certificates.directory.appendingPathComponent("AuthKey_KEY1234567.p8")
        try Data(try key.pkcs8PEM().utf8).write(to: keyFile)
        let process = try RegistryProcess(
            [
                "--port", "0", "--certificate", certificates.serverCertificateFile, "--private-key",
                certificates.serverKeyFile, "--apns-key", "TEAM123456:KEY1234567:\(keyFile.path)",
            ], environment: [:], product: "mock-push")
        defer { process.signal(SIGTERM) }
        let line = try await process.waitForLine { $0.hasPrefix("mock push listening on https://") }
        let port = try #require(line.split(separator: ":").last.flatMap { Int($0) })
        let base = "https://localhost:\(port)"
        let jwt = try JSONWebToken.sign(
            claims: Claims(iss: "TEAM123456", iat: Int(Date().timeIntervalSince1970)), keyID: "KEY1234567", with: key)
        let push = try Command.run(
            "curl",
            [
                "-sS", "--http2", "--cacert", certificates.caFile, "-o", "/dev/null", "-w", "%{http_code}",
                "-H", "authorization: bearer \(jwt)", "-H", "apns-topic: com.example.app", "--data-binary", "{}",
                "\(base)/3/device/\(String(repeating: "ab", count: 32))",
            ])
        #expect(push.standardOutput == "200")
        let stats = try Command.run("curl", ["-sS", "--http2", "--cacert", certificates.caFile, "\(base)/_mock/stats"])
        #expect(stats.standardOutput.contains(#""provider_tokens_accepted":1"#))
    }
}
