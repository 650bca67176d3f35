import Foundation
import PushTestSupport
import RegistryCore
import RegistryCrypto
import Testing

@testable import PushDelivery

/// APNs certificate authentication's credentials: `.p12` and PEM, checked when written, each
/// problem named by its field; certificates made by `openssl` for the test.
@Suite struct APNsClientCertificateTests {
    static func withCertificates(_ body: (TestClientCertificates) throws -> Void) throws {
        let certificates = try TestClientCertificates.make()
        defer { certificates.remove() }
        try body(certificates)
    }

    static func fields(_ json: JSONValue, validAt: Date? = Date()) -> [String: String] {
        do throws(ValidationErrors) {
            _ = try ProviderCredentials.parse(json, service: .apns, validAt: validAt)
            return [:]
        } catch {
            return Dictionary(error.errors.map { ($0.field, $0.message) }) { first, _ in first }
        }
    }

    static func pemJSON(_ issued: TestClientCertificates.Issued) throws -> JSONValue {
        .object([
            "certificate": .string(try issued.certificatePEM()), "private_key": .string(try issued.privateKeyPEM()),
        ])
    }

    @Test func aPEMCertificateShowsItsTopicsTeamAndExpiryButNoKey() throws {
        try Self.withCertificates { certificates in
            let issued = try certificates.issue("voip", days: 20)
            let credentials = try ProviderCredentials.parse(
                try Self.pemJSON(issued), service: .apns, validAt: Date())
            guard case .apnsCertificate(let certificate) = credentials else {
                Issue.record("not a certificate: \(credentials.service)")
                return
            }
            #expect(certificate.topics == ["com.example.app", "com.example.app.voip", "com.example.app.complication"])
            #expect(certificate.covers("com.example.app.voip") && !certificate.covers("com.other.app"))
            #expect(certificate.teamID == "ABCDE12345")
            #expect(abs(certificate.notValidAfter.timeIntervalSinceNow - 20 * 86_400) < 120)
            #expect(APNsCertificateExpiries.state(of: certificate.notValidAfter, at: Date()) == .expiring)
            let summary = try credentials.summary()
            #expect(summary.teamID == "ABCDE12345" && summary.keyID == nil)
            #expect(summary.keyFingerprint == certificate.fingerprint && summary.keyFingerprint.hasPrefix("SHA256:"))
            let shown = String(decoding: try JSONEncoder().encode(summary), as: UTF8.self)
            #expect(!shown.contains("PRIVATE") && !shown.contains("CERTIFICATE"))
        }
    }

    @Test func aP12WithOrWithoutAPasswordIsStoredAsPEMThatReadsBackTheSame() throws {
        try Self.withCertificates { certificates in
            let issued = try certificates.issue("p12")
            for password in ["s3cret pass", ""] {
                var fields: [String: JSONValue] = [
                    "pkcs12": .string(Data(try certificates.pkcs12(issued, password: password)).base64EncodedString())
                ]
                if !password.isEmpty { fields["pkcs12_password"] = .string(password) }
                let credentials = try ProviderCredentials.parse(.object(fields), service: .apns, validAt: Date())
                let stored = try JSONParser.parse(String(decoding: try credentials.storedForm(), as: UTF8.self))
                #expect(stored.objectValue.map { Set($0.keys) } == ["certificate", "private_key"])
                #expect(!String(decoding: try credentials.storedForm(), as: UTF8.self).contains("s3cret"))
                let reread = try ProviderCredentials.parse(stored, service: .apns)
                #expect(try reread.summary() == (try credentials.summary()))
                let pem = try ProviderCredentials.parse(try Self.pemJSON(issued), service: .apns)
                #expect(try reread.summary() == (try pem.summary()))
            }
        }
    }

    @Test func aWrongPasswordAGarbledArchiveAndAKeyOfAnotherCertificateAreNamed() throws {
        try Self.withCertificates { certificates in
            let issued = try certificates.issue("one")
            let other = try certificates.issue("two")
            let archive = Data(try certificates.pkcs12(issued, password: "right")).base64EncodedString()
            #expect(
                Self.fields(.object(["pkcs12": .string(archive), "pkcs12_password": .string("wrong")])) == [
                    "credentials.pkcs12_password": PKCS12Error.wrongPassword.description
                ])
            #expect(Self.fields(.object(["pkcs12": .string(archive)])).keys.sorted() == ["credentials.pkcs12_password"])
            #expect(
                Self.fields(.object(["pkcs12": .string("bm90IGEgcDEy")])) == [
                    "credentials.pkcs12": PKCS12Error.unreadable.description
                ])
            #expect(Self.fields(.object(["pkcs12": .string("%%%")])).keys.sorted() == ["credentials.pkcs12"])
            let mismatched: JSONValue = .object([
                "certificate": .string(try issued.certificatePEM()), "private_key": .string(try other.privateKeyPEM()),
            ])
            #expect(
                Self.fields(mismatched) == [
                    "credentials.private_key": APNsCertificateError.keyMismatch.description
                ])
            let garbled: JSONValue = .object([
                "certificate": .string("-----BEGIN CERTIFICATE-----\nAAAA\n"),
                "private_key": .string(try issued.privateKeyPEM()),
            ])
            #expect(Self.fields(garbled).keys.sorted() == ["credentials.certificate"])
        }
    }

    @Test func anExpiredCertificateIsRefusedWhenWrittenButStillOpensWhenStored() throws {
        try Self.withCertificates { certificates in
            let expired = try Self.pemJSON(try certificates.issue("old", days: -1))
            let problems = Self.fields(expired)
            #expect(problems.keys.sorted() == ["credentials.certificate"])
            #expect(problems["credentials.certificate"]?.hasPrefix("expired at ") == true)
            guard case .apnsCertificate(let stored) = try ProviderCredentials.parse(expired, service: .apns) else {
                Issue.record("not a certificate")
                return
            }
            #expect(APNsCertificateExpiries.state(of: stored.notValidAfter, at: Date()) == .expired)
        }
    }

    @Test func tokenAndCertificateFieldsDoNotMix() throws {
        try Self.withCertificates { certificates in
            let issued = try certificates.issue("mixed")
            let archive = Data(try certificates.pkcs12(issued, password: "")).base64EncodedString()
            let mixed: JSONValue = .object([
                "pkcs12": .string(archive), "certificate": .string(try issued.certificatePEM()),
                "team_id": .string("ABCDE12345"),
            ])
            #expect(Self.fields(mixed).keys.sorted() == ["credentials.certificate", "credentials.team_id"])
            #expect(
                Self.fields(.object(["certificate": .string(try issued.certificatePEM())])).keys.sorted() == [
                    "credentials.private_key"
                ])
            #expect(
                Self.fields(.object(["pkcs12": .string(archive), "pkcs12_password": .number(1)])).keys.sorted() == [
                    "credentials.pkcs12_password"
                ])
        }
    }

    @Test func theTopicsExtensionIsReadAndAnythingElseIsNot() {
        // SEQUENCE { UTF8String "a.b", SEQUENCE { UTF8String "app" } }
        let value: [UInt8] = [0x30, 0x0C, 0x0C, 0x03, 0x61, 0x2E, 0x62, 0x30, 0x05, 0x0C, 0x03, 0x61, 0x70, 0x70]
        #expect(APNsCertificateTopics.parse(value) == ["a.b"])
        #expect(APNsCertificateTopics.parse(Array(value.dropLast())) == nil)
        #expect(APNsCertificateTopics.parse([0x04, 0x00]) == nil)
        #expect(APNsCertificateTopics.parse([]) == nil)
    }

    @Test func anAlertAboutOurCertificateIsToldFromOurVerdictOnTheServers() {
        #expect(TLSHandshakeObserver.refusesClientCertificate("handshakeFailed(SSLV3_ALERT_BAD_CERTIFICATE)"))
        #expect(TLSHandshakeObserver.refusesClientCertificate("sslError([TLSV1_ALERT_UNKNOWN_CA])"))
        #expect(!TLSHandshakeObserver.refusesClientCertificate("handshakeFailed(CERTIFICATE_VERIFY_FAILED)"))
    }
}
