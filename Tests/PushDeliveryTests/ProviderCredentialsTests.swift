import Foundation
import RegistryCore
import RegistryCrypto
import Testing

@testable import PushDelivery

@Suite struct ProviderCredentialsTests {
    static func apnsJSON(team: String = "ABCDE12345", keyID: String = "XYZ987WVU6", pem: String) -> JSONValue {
        .object(["team_id": .string(team), "key_id": .string(keyID), "private_key": .string(pem)])
    }

    static func serviceAccount(pem: String) -> JSONValue {
        .object([
            "service_account": .object([
                "type": .string("service_account"), "project_id": .string("example-project"),
                "private_key_id": .string("k1"), "private_key": .string(pem),
                "client_email": .string("sender@example-project.iam.gserviceaccount.com"),
                "token_uri": .string("https://oauth2.googleapis.com/token"),
            ])
        ])
    }

    @Test func apnsCredentialsParseAndShowOnlyIdsAndAFingerprint() throws {
        let key = try SigningKey.generate(.es256)
        let credentials = try ProviderCredentials.parse(Self.apnsJSON(pem: try key.pkcs8PEM()), service: .apns)
        let summary = try credentials.summary()
        #expect(summary.teamID == "ABCDE12345")
        #expect(summary.keyID == "XYZ987WVU6")
        #expect(summary.keyFingerprint == (try key.verifyingKey().fingerprint()))
        let shown = String(decoding: try JSONEncoder().encode(summary), as: UTF8.self)
        #expect(!shown.contains("PRIVATE") && !shown.contains("private_key"))
    }

    @Test func everyAPNsProblemIsNamedByItsField() throws {
        let rsa = try SigningKey.generate(.rs256).pkcs8PEM()
        var json = Self.apnsJSON(team: "abcde12345", keyID: "SHORT", pem: rsa)
        if case .object(var fields) = json {
            fields["teamid"] = .string("x")
            json = .object(fields)
        }
        do throws(ValidationErrors) {
            _ = try ProviderCredentials.parse(json, service: .apns)
            Issue.record("accepted")
        } catch {
            #expect(
                error.errors.map(\.field) == [
                    "credentials.teamid", "credentials.team_id", "credentials.key_id", "credentials.private_key",
                ])
            #expect(error.errors[3].message == KeyError.wrongKind(expected: .es256).description)
        }
        #expect(throws: ValidationErrors.self) { try ProviderCredentials.parse(.string("x"), service: .apns) }
    }

    @Test func fcmCredentialsParseFromTheServiceAccountFile() throws {
        let credentials = try ProviderCredentials.parse(
            Self.serviceAccount(pem: try SigningKey.generate(.rs256).pkcs8PEM()), service: .fcm)
        let summary = try credentials.summary()
        #expect(summary.clientEmail == "sender@example-project.iam.gserviceaccount.com")
        #expect(summary.projectID == "example-project")
        #expect(summary.keyID == "k1")
    }

    @Test func anFCMKeyOfTheWrongKindIsNamedUnderTheServiceAccount() throws {
        let pem = try SigningKey.generate(.es256).pkcs8PEM()
        do throws(ValidationErrors) {
            _ = try ProviderCredentials.parse(Self.serviceAccount(pem: pem), service: .fcm)
            Issue.record("accepted")
        } catch {
            #expect(error.errors.map(\.field) == ["credentials.service_account.private_key"])
        }
    }

    /// Sealed at rest and opened again, the credentials are the same key.
    @Test(arguments: [PushService.apns, .fcm])
    func theStoredFormSealsOpensAndParsesBack(service: PushService) throws {
        let json =
            service == .apns
            ? Self.apnsJSON(pem: try SigningKey.generate(.es256).pkcs8PEM())
            : Self.serviceAccount(pem: try SigningKey.generate(.rs256).pkcs8PEM())
        let credentials = try ProviderCredentials.parse(json, service: service)
        let sealer = SecretSealer(current: try MasterKey.generate())
        let sealed = try sealer.seal(try credentials.storedForm(), context: "provider:ios-app")
        #expect(!sealed.contains("PRIVATE"))
        let opened = try sealer.open(sealed, context: "provider:ios-app")
        let reparsed = try ProviderCredentials.parse(
            JSONParser.parse(String(decoding: opened, as: UTF8.self)), service: service)
        #expect(try reparsed.summary() == credentials.summary())
    }
}
