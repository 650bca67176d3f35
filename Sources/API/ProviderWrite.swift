import CallPush
import Foundation
import PushDelivery
import RegistryCore
import Store

/// A `PUT /v1/providers/{name}` body: the provider's own fields (replaced), and its optional
/// `endpoint`, `call_format`, `templates` and `credentials`, each kept when absent — rotating a
/// key or fixing a topic must not change the payload the app parses — and reset by `null`
/// (to the service's own URL, `stream`, no templates; credentials removed). Credentials given
/// replace the stored ones once the key in them has signed a test message. Every problem is
/// reported at once.
struct ProviderWrite {
    enum Credentials {
        case keep
        case remove
        case replace(ProviderCredentials)
    }

    let provider: Provider
    let endpoint: FieldChange<PushEndpoint?>
    let callFormat: FieldChange<CallFormat>
    let templates: FieldChange<NotificationTemplates>
    let credentials: Credentials

    /// The name comes from the path; the body must not repeat it.
    static func parse(name: String, body: JSONValue) throws(ValidationErrors) -> ProviderWrite {
        guard case .object(var fields) = body else {
            _ = try Provider.parse(body)  // Throws, saying what a provider body must be.
            throw ValidationErrors([ValidationError(field: "", message: "must be a JSON object")])  // Unreachable.
        }
        var errors: [ValidationError] = []
        if fields["name"] != nil {
            errors.append(ValidationError(field: "name", message: "is not a body field: the name is in the path"))
        }
        fields["name"] = .string(name)
        let endpointValue = fields.removeValue(forKey: "endpoint")
        let credentialsValue = fields.removeValue(forKey: "credentials")
        let callFormatValue = fields.removeValue(forKey: "call_format")
        let templatesValue = fields.removeValue(forKey: "templates")
        var provider: Provider?
        do throws(ValidationErrors) {
            provider = try Provider.parse(.object(fields))
        } catch {
            errors += error.errors
        }
        var endpoint = FieldChange<PushEndpoint?>.keep
        switch endpointValue {
        case nil:
            break
        case .null?:
            endpoint = .set(nil)
        case .string(let url)?:
            do throws(ValidationError) { endpoint = .set(try PushEndpoint(url)) } catch { errors.append(error) }
        case let other?:
            errors.append(ValidationError(field: "endpoint", message: "must be an https URL, not \(other.typeName)"))
        }
        var callFormat = FieldChange<CallFormat>.keep
        switch callFormatValue {
        case nil:
            break
        case .null?:
            callFormat = .set(.stream)
        case .string(let raw)?:
            do throws(ValidationError) { callFormat = .set(try CallFormat(raw)) } catch { errors.append(error) }
        case let other?:
            errors.append(ValidationError(field: "call_format", message: "must be a string, not \(other.typeName)"))
        }
        var templates = FieldChange<NotificationTemplates>.keep
        switch templatesValue {
        case nil:
            break
        case .null?:
            templates = .set(.none)
        case let value?:
            do throws(ValidationErrors) { templates = .set(try NotificationTemplates.parse(value)) } catch {
                errors += error.errors
            }
        }
        var credentials = Credentials.keep
        switch credentialsValue {
        case nil:
            break
        case .null?:
            credentials = .remove
        case let value?:
            // The service decides which fields the credentials have; without one there is
            // nothing to check them against (Provider.parse already named `service`).
            guard let service = fields["service"]?.stringValue.flatMap(PushService.init(rawValue:)) else { break }
            do throws(ValidationErrors) {
                let parsed = try ProviderCredentials.parse(value, service: service, validAt: Date())
                if case .fcm(let account) = parsed, let projectID = provider?.projectID, projectID != account.projectID
                {
                    errors.append(
                        ValidationError(
                            field: "credentials.service_account.project_id",
                            message: "must match the provider's project_id (\(projectID))"))
                }
                // A certificate for another app would be refused at every push.
                if case .apnsCertificate(let certificate) = parsed, let topic = provider?.topic,
                    !certificate.covers(topic)
                {
                    let field = value.objectValue?["pkcs12"] != nil ? "pkcs12" : "certificate"
                    let covered = certificate.topics.joined(separator: ", ")
                    let message = "covers \(covered), not the provider's topic \(topic)"
                    errors.append(ValidationError(field: "credentials.\(field)", message: message))
                }
                credentials = .replace(parsed)
            } catch {
                errors += error.errors
            }
        }
        guard errors.isEmpty, let provider else { throw ValidationErrors(errors) }
        return ProviderWrite(
            provider: provider, endpoint: endpoint, callFormat: callFormat, templates: templates,
            credentials: credentials)
    }
}
