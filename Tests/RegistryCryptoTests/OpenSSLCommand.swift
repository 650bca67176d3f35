import Foundation
import TestSupport

/// Runs the `openssl` command line for keys `SigningKey.generate` does not make.
enum OpenSSLCommand {
    /// `openssl genpkey ARGUMENTS`, written to a temporary file; returns the PEM text.
    static func generateKey(_ arguments: [String]) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("key-\(UUID().uuidString).pem")
        defer { try? FileManager.default.removeItem(at: file) }
        try Command.run("openssl", ["genpkey"] + arguments + ["-out", file.path])
        return try String(contentsOf: file, encoding: .utf8)
    }
}
