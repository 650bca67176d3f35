import Encodings
import Foundation
import RegistryCrypto
import Testing

@testable import CallPush

@Suite struct DialStackSignatureTests {
    static let body = Array(#"{"id":"evt_1","type":"call.mobile_push_wakeup","data":{}}"#.utf8)
    static let t: Int64 = 1_775_831_400  // 2026-04-10T14:30:00Z
    static let now = Date(timeIntervalSince1970: Double(t))

    static func sign(_ body: [UInt8] = body, secret: String = "whsec_current", t: Int64 = t) -> String {
        Hex.encode(HMAC.sha256(key: Array(secret.utf8), data: Array("\(t).".utf8) + body))
    }

    static func verify(
        _ header: String?, body: [UInt8] = body, secrets: String = "whsec_current", now: Date = now
    ) -> DialStackSignatureFailure? {
        let signature = try! DialStackSignature(secrets: secrets)
        do {
            try signature.verify(header: header, body: body, now: now)
            return nil
        } catch {
            return error
        }
    }

    @Test func aGoodSignatureIsAccepted() {
        #expect(Self.verify("t=\(Self.t),v1=\(Self.sign())") == nil)
        #expect(Self.verify(" t=\(Self.t) , v1=\(Self.sign().uppercased()) ") == nil)
    }

    @Test func theSignedStringIsTimestampDotRawBody() {
        // Independent of the helper: HMAC-SHA256("k", "1.{}") computed by OpenSSL's command line.
        // printf '1.{}' | openssl dgst -sha256 -hmac k
        let expected = Hex.encode(HMAC.sha256(key: Array("k".utf8), data: Array("1.{}".utf8)))
        let header = "t=1,v1=\(expected)"
        #expect(Self.verify(header, body: Array("{}".utf8), secrets: "k", now: Date(timeIntervalSince1970: 1)) == nil)
    }

    @Test func aWrongSecretIsRefused() {
        #expect(Self.verify("t=\(Self.t),v1=\(Self.sign(secret: "whsec_other"))") == .noMatchingSignature)
    }

    @Test func aTamperedBodyIsRefused() {
        var tampered = Self.body
        tampered[tampered.count - 2] = UInt8(ascii: " ")
        #expect(Self.verify("t=\(Self.t),v1=\(Self.sign())", body: tampered) == .noMatchingSignature)
    }

    @Test func aTamperedTimestampIsRefused() {
        #expect(Self.verify("t=\(Self.t + 1),v1=\(Self.sign())") == .noMatchingSignature)
    }

    @Test func timestampsMoreThanFiveMinutesAwayAreRefusedEitherWay() {
        for (offset, accepted) in [(-300, true), (300, true), (-301, false), (301, false), (-86_400, false)] {
            let t = Self.t + Int64(offset)
            let failure = Self.verify("t=\(t),v1=\(Self.sign(t: t))")
            #expect(failure == (accepted ? nil : .timestampOutsideTolerance), "offset \(offset)")
        }
    }

    @Test func missingOrMalformedHeadersAreRefused() {
        let v1 = "v1=\(Self.sign())"
        #expect(Self.verify(nil) == .missingHeader)
        #expect(Self.verify("") == .malformedHeader("t is missing"))
        #expect(Self.verify(v1) == .malformedHeader("t is missing"))
        #expect(Self.verify("t=\(Self.t)") == .malformedHeader("v1 is missing"))
        #expect(Self.verify("t=\(Self.t),\(v1),t=\(Self.t)") == .malformedHeader("t appears more than once"))
        #expect(Self.verify("t=soon,\(v1)") == .malformedHeader("t must be Unix seconds"))
        #expect(Self.verify("t=-5,\(v1)") == .malformedHeader("t must be Unix seconds"))
        #expect(Self.verify("t=\(Self.t);\(v1)") == .malformedHeader("t must be Unix seconds"))
        #expect(Self.verify("t=\(Self.t),\(Self.sign())") == .malformedHeader("\"\(Self.sign())\" is not key=value"))
        #expect(Self.verify("t=\(Self.t),v1=") == .noMatchingSignature)
        #expect(Self.verify("t=\(Self.t),v1=\(Self.sign().dropLast(2))") == .noMatchingSignature)
        #expect(Self.verify("t=\(Self.t),v0=\(Self.sign())") == .malformedHeader("v1 is missing"))
    }

    @Test func duringARotationAnyConfiguredSecretCounts() {
        let secrets = "whsec_old, whsec_current ,whsec_next"
        for secret in ["whsec_old", "whsec_current", "whsec_next"] {
            #expect(Self.verify("t=\(Self.t),v1=\(Self.sign(secret: secret))", secrets: secrets) == nil)
        }
        #expect(
            Self.verify("t=\(Self.t),v1=\(Self.sign(secret: "whsec_retired"))", secrets: secrets)
                == .noMatchingSignature)
    }

    @Test func anyOfSeveralV1ValuesCounts() {
        let good = Self.sign()
        let bad = Self.sign(secret: "whsec_other")
        #expect(Self.verify("t=\(Self.t),v1=\(bad),v1=\(good)") == nil)
        #expect(Self.verify("t=\(Self.t),v1=\(good),v1=\(bad)") == nil)
        #expect(Self.verify("t=\(Self.t),v1=zz,v1=\(good),v2=whatever") == nil)
        #expect(Self.verify("t=\(Self.t),v1=\(bad),v1=\(bad)") == .noMatchingSignature)
    }

    @Test func emptySecretsAreAConfigurationError() {
        for configured in ["", " ", "a,", ",a", "a,,b"] {
            #expect(throws: (any Error).self, "\"\(configured)\"") { try DialStackSignature(secrets: configured) }
        }
        #expect(throws: Never.self) { try DialStackSignature(secrets: "a\n") }
    }

    @Test func theSecretsNeverShowInTheDescription() throws {
        let signature = try DialStackSignature(secrets: "whsec_current,whsec_next")
        #expect(!"\(signature)".contains("whsec"))
        #expect("\(signature)".contains("2 secret(s)"))
    }
}
