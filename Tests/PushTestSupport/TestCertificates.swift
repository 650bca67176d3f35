import Foundation
import TestSupport

/// A throwaway CA and a server certificate for `localhost` and `127.0.0.1`, made with the
/// `openssl` command line in a fresh temporary directory: no key is ever committed.
public struct TestCertificates: Sendable {
    public let directory: URL
    /// The CA certificate, what `PUSH_CA_FILE` points at.
    public let caFile: String
    public let serverCertificateFile: String
    public let serverKeyFile: String

    public static func make() throws -> TestCertificates {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("push-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
        try Data(
            """
            basicConstraints = critical, CA:FALSE
            keyUsage = critical, digitalSignature
            extendedKeyUsage = serverAuth
            subjectAltName = DNS:localhost, IP:127.0.0.1

            """.utf8
        ).write(to: directory.appendingPathComponent("server.ext"))
        let p256 = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
        try Command.run(
            "openssl",
            ["req", "-x509"] + p256 + [
                "-keyout", path("ca.key"), "-out", path("ca.pem"), "-days", "2", "-subj", "/CN=DeviceRegistry Test CA",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            ])
        try Command.run(
            "openssl",
            ["req"] + p256 + ["-keyout", path("server.key"), "-out", path("server.csr"), "-subj", "/CN=localhost"])
        try Command.run(
            "openssl",
            [
                "x509", "-req", "-in", path("server.csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"),
                "-CAcreateserial", "-out", path("server.pem"), "-days", "2", "-extfile", path("server.ext"),
            ])
        return TestCertificates(
            directory: directory, caFile: path("ca.pem"), serverCertificateFile: path("server.pem"),
            serverKeyFile: path("server.key"))
    }

    public func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}
