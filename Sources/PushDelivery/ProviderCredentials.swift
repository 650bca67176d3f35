import Foundation
import RegistryCore
import RegistryCrypto

/// A provider's push credentials as `PUT /v1/providers/{name}` takes them in `credentials`:
///
/// - apns, token authentication: `{"team_id": "ABCDE12345", "key_id": "XYZ987WVU6", "private_key": "<the .p8 text>"}`
/// - apns, certificate authentication: `{"certificate": "<PEM>", "private_key": "<PEM>"}`, or
///   `{"pkcs12": "<the .p12 in base64>", "pkcs12_password": "…"}` (the password optional)
/// - fcm: `{"service_account": { …the JSON file Google issues… }}`
///
/// Constructed only valid: the key is read and must sign a test message that its public half
/// verifies, so a key that would fail at the first push is refused when stored; a certificate's
/// key must be its own, and with `validAt` the certificate must not have expired by then (a
/// write passes the time; opening stored credentials does not, so an expired certificate still
/// loads and is reported). Every problem is named by its field under `field`.
public enum ProviderCredentials: Sendable {
    case apns(APNsCredentials)
    case apnsCertificate(APNsClientCertificate)
    case fcm(FCMServiceAccount)

    static let apnsFields = ["team_id", "key_id", "private_key", "certificate", "pkcs12", "pkcs12_password"]

    public static func parse(
        _ json: JSONValue, service: PushService, field: String = "credentials", validAt: Date? = nil
    ) throws(ValidationErrors) -> ProviderCredentials {
        guard let object = json.objectValue else {
            throw ValidationErrors([ValidationError(field: field, message: "must be an object, not \(json.typeName)")])
        }
        let known = service == .apns ? apnsFields : ["service_account"]
        var errors = object.keys.sorted().filter { !known.contains($0) }.map {
            ValidationError(
                field: "\(field).\($0)",
                message: "is not a \(service.rawValue) credential field; expected \(known.joined(separator: ", "))")
        }
        let credentials: ProviderCredentials?
        switch service {
        case .apns where object["certificate"] != nil || object["pkcs12"] != nil:
            credentials = parseAPNsCertificate(object, field: field, validAt: validAt, errors: &errors)
        case .apns:
            credentials = parseAPNs(object, field: field, errors: &errors)
        case .fcm:
            do throws(ValidationErrors) {
                credentials = .fcm(
                    try FCMServiceAccount(json: object["service_account"] ?? .null, field: "\(field).service_account"))
            } catch {
                credentials = nil
                errors += error.errors
            }
        }
        if let credentials, errors.isEmpty, !credentials.signsAndVerifies {
            errors.append(ValidationError(field: credentials.keyField(field), message: "could not sign with this key"))
        }
        guard errors.isEmpty, let credentials else { throw ValidationErrors(errors) }
        return credentials
    }

    private static func parseAPNs(_ object: [String: JSONValue], field: String, errors: inout [ValidationError])
        -> ProviderCredentials?
    {
        func identifier(_ name: String, _ what: String) -> String? {
            guard let value = object[name]?.stringValue, value.count == 10,
                value.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) })
            else {
                errors.append(
                    ValidationError(
                        field: "\(field).\(name)", message: "must be the 10-character \(what), like ABCDE12345"))
                return nil
            }
            return value
        }
        let teamID = identifier("team_id", "Apple team id")
        let keyID = identifier("key_id", "key id of the .p8 key")
        var key: SigningKey?
        if let pem = object["private_key"]?.stringValue {
            do throws(KeyError) {
                key = try SigningKey(pem: pem, algorithm: .es256)
            } catch {
                errors.append(ValidationError(field: "\(field).private_key", message: error.description))
            }
        } else {
            errors.append(
                ValidationError(field: "\(field).private_key", message: "must be the .p8 file's text (PKCS#8 PEM)"))
        }
        guard let teamID, let keyID, let key else { return nil }
        return .apns(APNsCredentials(teamID: teamID, keyID: keyID, key: key))
    }

    public var service: PushService {
        switch self {
        case .apns, .apnsCertificate: .apns
        case .fcm: .fcm
        }
    }

    private var key: SigningKey {
        switch self {
        case .apns(let credentials): credentials.key
        case .apnsCertificate(let certificate): certificate.key
        case .fcm(let account): account.key
        }
    }

    private func keyField(_ field: String) -> String {
        service == .apns ? "\(field).private_key" : "\(field).service_account.private_key"
    }

    private var signsAndVerifies: Bool {
        let message = Array("DeviceRegistry key check".utf8)
        guard let signature = try? key.sign(message), let verifier = try? key.verifyingKey() else { return false }
        return verifier.isValidSignature(signature, for: message)
    }

    /// What may be shown about the credentials: ids and a fingerprint of the public key, never
    /// the key.
    public func summary() throws -> CredentialSummary {
        let fingerprint = try key.verifyingKey().fingerprint()
        switch self {
        case .apns(let credentials):
            return CredentialSummary(
                teamID: credentials.teamID, keyID: credentials.keyID, clientEmail: nil, projectID: nil,
                keyFingerprint: fingerprint)
        case .apnsCertificate(let certificate):
            return CredentialSummary(
                teamID: certificate.teamID, keyID: nil, clientEmail: nil, projectID: nil,
                keyFingerprint: certificate.fingerprint)
        case .fcm(let account):
            return CredentialSummary(
                teamID: nil, keyID: account.privateKeyID, clientEmail: account.clientEmail,
                projectID: account.projectID, keyFingerprint: fingerprint)
        }
    }

    /// The credentials as the JSON `parse` reads, for sealing at rest (`SecretSealer`). Contains
    /// the private key: seal it at once, never log or answer it.
    public func storedForm() throws -> [UInt8] {
        let value: JSONValue
        switch self {
        case .apns(let credentials):
            value = .object([
                "team_id": .string(credentials.teamID), "key_id": .string(credentials.keyID),
                "private_key": .string(try credentials.key.pkcs8PEM()),
            ])
        case .apnsCertificate(let certificate):
            let pem = try certificate.pem()
            value = .object(["certificate": .string(pem.certificate), "private_key": .string(pem.privateKey)])
        case .fcm(let account):
            var fields: [String: JSONValue] = [
                "type": .string("service_account"), "project_id": .string(account.projectID),
                "client_email": .string(account.clientEmail), "private_key": .string(try account.key.pkcs8PEM()),
                "token_uri": .string(account.tokenURI),
            ]
            if let keyID = account.privateKeyID { fields["private_key_id"] = .string(keyID) }
            value = .object(["service_account": .object(fields)])
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }
}
