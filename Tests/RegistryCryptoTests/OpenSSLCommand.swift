import Foundation

/// Runs the `openssl` command line for keys `SigningKey.generate` does not make.
enum OpenSSLCommand {
    struct Failed: Error {
        let status: Int32
    }

    /// `openssl genpkey ARGUMENTS`, written to a temporary file; returns the PEM text.
    static func generateKey(_ arguments: [String]) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("key-\(UUID().uuidString).pem")
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl", "genpkey"] + arguments + ["-out", file.path]
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Failed(status: process.terminationStatus) }
        return try String(contentsOf: file, encoding: .utf8)
    }
}
