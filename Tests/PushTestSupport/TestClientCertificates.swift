import Foundation
import TestSupport

/// A throwaway CA for APNs client certificates and the certificates it issues, shaped like
/// Apple's VoIP Services certificate (the bundle id in the subject's UID, the team id in its OU,
/// and the bundle id, `.voip` and `.complication` topics in Apple's extension), made with the
/// `openssl` command line in a fresh temporary directory: no key is ever committed.
public struct TestClientCertificates: Sendable {
    /// One issued certificate: PEM texts, and the files they are in.
    public struct Issued: Sendable {
        public let certificateFile: String
        public let privateKeyFile: String

        public func certificatePEM() throws -> String { try String(contentsOfFile: certificateFile, encoding: .utf8) }
        public func privateKeyPEM() throws -> String { try String(contentsOfFile: privateKeyFile, encoding: .utf8) }
    }

    public let directory: URL
    /// The CA certificate, what the mock APNs trusts client certificates from.
    public let caFile: String

    public static func make() throws -> TestClientCertificates {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "apns-client-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let caFile = directory.appendingPathComponent("ca.pem").path
        try Command.run(
            "openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
                directory.appendingPathComponent("ca.key").path, "-out", caFile, "-days", "2", "-subj",
                "/CN=DeviceRegistry Test Apple WWDR CA", "-addext", "basicConstraints=critical,CA:TRUE", "-addext",
                "keyUsage=critical,keyCertSign,cRLSign",
            ])
        return TestClientCertificates(directory: directory, caFile: caFile)
    }

    /// A client certificate for `bundleID`, valid for `days` from now (negative: expired that many
    /// days ago), with a 2048-bit RSA key as Apple's are.
    public func issue(
        _ name: String, bundleID: String = "com.example.app", teamID: String = "ABCDE12345", days: Int = 30
    ) throws -> Issued {
        func path(_ suffix: String) -> String { directory.appendingPathComponent("\(name).\(suffix)").path }
        try Data(
            """
            basicConstraints = critical, CA:FALSE
            keyUsage = critical, digitalSignature, keyEncipherment
            extendedKeyUsage = clientAuth
            1.2.840.113635.100.6.3.6 = ASN1:SEQUENCE:topics

            [topics]
            topic1 = UTF8:\(bundleID)
            kind1 = SEQUENCE:app
            topic2 = UTF8:\(bundleID).voip
            kind2 = SEQUENCE:voip
            topic3 = UTF8:\(bundleID).complication
            kind3 = SEQUENCE:complication

            [app]
            kind = UTF8:app
            [voip]
            kind = UTF8:voip
            [complication]
            kind = UTF8:complication

            """.utf8
        ).write(to: URL(fileURLWithPath: path("ext")))
        try Command.run(
            "openssl",
            [
                "req", "-newkey", "rsa:2048", "-nodes", "-keyout", path("key"), "-out", path("csr"), "-subj",
                "/UID=\(bundleID)/CN=VoIP Services: \(bundleID)/OU=\(teamID)/O=Example/C=US",
            ])
        try Command.run(
            "openssl",
            [
                "x509", "-req", "-in", path("csr"), "-CA", caFile, "-CAkey",
                directory.appendingPathComponent("ca.key").path, "-CAcreateserial", "-out", path("pem"), "-days",
                String(days), "-extfile", path("ext"),
            ])
        return Issued(certificateFile: path("pem"), privateKeyFile: path("key"))
    }

    /// `issued` as a `.p12` file's bytes, under `password` (none when empty).
    public func pkcs12(_ issued: Issued, password: String) throws -> [UInt8] {
        let file = directory.appendingPathComponent("\(UUID().uuidString).p12").path
        try Command.run(
            "openssl",
            [
                "pkcs12", "-export", "-in", issued.certificateFile, "-inkey", issued.privateKeyFile, "-out", file,
                "-passout", "pass:\(password)",
            ])
        return Array(try Data(contentsOf: URL(fileURLWithPath: file)))
    }

    public func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}
