import Foundation
import RegistryCore
import RegistryCrypto

/// The parts of a Google service account key file the FCM sender uses: `project_id`,
/// `client_email`, `private_key` (RSA, PKCS#8 PEM), `private_key_id` and `token_uri`.
public struct FCMServiceAccount: Sendable {
    public let projectID: String
    public let clientEmail: String
    public let privateKeyID: String?
    public let key: SigningKey
    public let tokenURI: String
    let tokenEndpoint: PushEndpoint
    let tokenPath: String

    /// Reads the JSON as Google issues it; every problem is named by its field under `field`
    /// (e.g. `credentials.service_account.private_key`). Other fields are ignored.
    public init(json: JSONValue, field: String = "service_account") throws(ValidationErrors) {
        guard let object = json.objectValue else {
            throw ValidationErrors([ValidationError(field: field, message: "must be the service account JSON object")])
        }
        var errors: [ValidationError] = []
        func text(_ name: String) -> String? {
            guard let value = object[name]?.stringValue, !value.isEmpty else {
                errors.append(ValidationError(field: "\(field).\(name)", message: "must be a non-empty string"))
                return nil
            }
            return value
        }
        let projectID = text("project_id")
        let clientEmail = text("client_email")
        let pem = text("private_key")
        let tokenURI = text("token_uri")
        var key: SigningKey?
        if let pem {
            do throws(KeyError) {
                key = try SigningKey(pem: pem, algorithm: .rs256)
            } catch {
                errors.append(ValidationError(field: "\(field).private_key", message: error.description))
            }
        }
        var token: (PushEndpoint, path: String)?
        if let tokenURI {
            do throws(ValidationError) {
                token = try PushEndpoint.split(tokenURI, field: "\(field).token_uri")
            } catch {
                errors.append(error)
            }
        }
        guard errors.isEmpty, let projectID, let clientEmail, let key, let tokenURI, let token else {
            throw ValidationErrors(errors)
        }
        self.projectID = projectID
        self.clientEmail = clientEmail
        privateKeyID = object["private_key_id"]?.stringValue
        self.key = key
        self.tokenURI = tokenURI
        tokenEndpoint = token.0
        tokenPath = token.path
    }
}
