import Foundation
import PushDelivery
import Testing

@Suite struct PushTLSTests {
    /// A wrong `PUSH_CA_FILE` fails at startup, not as a connection error at the first push.
    @Test func aMissingCAFileIsRefusedWhenTheContextIsMade() {
        #expect(throws: PushTLS.CAFileError.self) { try PushTLS.makeContext(additionalCAFile: "/nonexistent/ca.pem") }
    }

    @Test func aFileWithoutCertificatesIsRefusedToo() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-ca-\(UUID()).pem").path
        try Data("not a certificate\n".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: PushTLS.CAFileError.self) { try PushTLS.makeContext(additionalCAFile: path) }
    }

    @Test func withoutACAFileTheSystemRootsAreUsed() throws {
        _ = try PushTLS.makeContext(additionalCAFile: nil)
    }
}
