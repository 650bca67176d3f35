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

    /// `--fault-proxy-port`, as `scripts/bench ring --faults` runs it: pushes pass through the
    /// proxy to the mock, SIGUSR1 black-holes its connections and leaves the process serving,
    /// and the mock's records carry milliseconds (the bench times rings by them).
    @Test func runsAFaultProxyThatASignalBlackholes() async throws {
        let certificates = try TestCertificates.make()
        defer { certificates.remove() }
        let process = try RegistryProcess(
            [
                "--port", "0", "--certificate", certificates.serverCertificateFile, "--private-key",
                certificates.serverKeyFile, "--fault-proxy-port", "0",
            ], environment: [:], product: "mock-push")
        defer { process.signal(SIGTERM) }
        let line = try await process.waitForLine { $0.hasPrefix("fault proxy listening on 127.0.0.1:") }
        let port = try #require(line.split(separator: ":").last.flatMap { Int($0) })
        func curl(_ path: String) throws -> String {
            try Command.run(
                "curl", ["-sS", "--http2", "--cacert", certificates.caFile, "https://localhost:\(port)\(path)"]
            ).standardOutput
        }
        // No key registered: the mock answers 403, and records it.
        _ = try curl("/3/device/\(String(repeating: "ab", count: 32))")
        #expect(try curl("/_mock/requests").contains(/"received_at":"[0-9T:-]+\.[0-9]{3}Z"/))
        process.signal(SIGUSR1)
        _ = try await process.waitForLine { $0.hasPrefix("fault proxy black-holed its open connections") }
        #expect(try curl("/_mock/stats").contains(#""connections""#))
        #expect(process.isRunning)
    }
}
