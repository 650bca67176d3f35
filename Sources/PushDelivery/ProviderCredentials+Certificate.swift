import Foundation
import RegistryCore

extension ProviderCredentials {
    private static let certificateFields =
        "certificate authentication takes certificate and private_key (PEM), or pkcs12 (base64) and pkcs12_password"

    /// APNs certificate authentication: `certificate` and `private_key` in PEM, or `pkcs12`, the
    /// `.p12` file in base64, with `pkcs12_password` when it has one. Token authentication's
    /// `team_id` and `key_id` do not belong (the team is read from the certificate).
    static func parseAPNsCertificate(
        _ object: [String: JSONValue], field: String, validAt: Date?, errors: inout [ValidationError]
    ) -> ProviderCredentials? {
        func refuse(_ name: String, _ message: String) {
            errors.append(ValidationError(field: "\(field).\(name)", message: message))
        }
        for name in ["team_id", "key_id"] where object[name] != nil {
            refuse(name, "is for token authentication (a .p8 key); \(certificateFields)")
        }
        let archived = object["pkcs12"] != nil
        let certificate: APNsClientCertificate
        do throws(APNsCertificateError) {
            if archived {
                for name in ["certificate", "private_key"] where object[name] != nil {
                    refuse(name, "is not given with pkcs12; \(certificateFields)")
                }
                guard let text = object["pkcs12"]?.stringValue,
                    let archive = Data(base64Encoded: text, options: .ignoreUnknownCharacters), !archive.isEmpty
                else {
                    refuse("pkcs12", "must be the .p12 file in base64 (base64 -w0 certificate.p12)")
                    return nil
                }
                var password: String?
                switch object["pkcs12_password"] {
                case nil, .null?: password = nil
                case .string(let text)?: password = text
                case let other?:
                    refuse("pkcs12_password", "must be a string, not \(other.typeName)")
                    return nil
                }
                certificate = try APNsClientCertificate(pkcs12: Array(archive), password: password)
            } else {
                if object["pkcs12_password"] != nil { refuse("pkcs12_password", "is given only with pkcs12") }
                guard let pem = object["certificate"]?.stringValue else {
                    refuse("certificate", "must be the certificate's PEM text (-----BEGIN CERTIFICATE-----)")
                    return nil
                }
                guard let key = object["private_key"]?.stringValue else {
                    refuse("private_key", "must be the certificate's private key, unencrypted PEM")
                    return nil
                }
                certificate = try APNsClientCertificate(certificatePEM: pem, privateKeyPEM: key)
            }
        } catch {
            refuse(error.field, error.description)
            return nil
        }
        if let validAt, certificate.notValidAfter <= validAt {
            let expiry = ISO8601DateFormatter().string(from: certificate.notValidAfter)
            refuse(
                archived ? "pkcs12" : "certificate",
                "expired at \(expiry); create a new one in the Apple Developer account and upload it")
        }
        return .apnsCertificate(certificate)
    }
}
