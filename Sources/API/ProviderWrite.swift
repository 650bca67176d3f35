import CallPush
import PushDelivery
import RegistryCore

/// A `PUT /v1/providers/{name}` body: the provider's own fields, its optional `endpoint`,
/// `call_format` (default `stream`) and `templates` (default none) — each replaced like the
/// provider's other fields, so a PUT without them resets them — and what to do with its
/// credentials — absent keeps them, `null` removes them, an object replaces
/// them once the key in it has signed a test message. Every problem is reported at once.
struct ProviderWrite {
    enum Credentials {
        case keep
        case remove
        case replace(ProviderCredentials)
    }

    let provider: Provider
    let endpoint: PushEndpoint?
    let callFormat: CallFormat
    let templates: NotificationTemplates
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
        var endpoint: PushEndpoint?
        switch endpointValue {
        case nil, .null?:
            break
        case .string(let url)?:
            do throws(ValidationError) { endpoint = try PushEndpoint(url) } catch { errors.append(error) }
        case let other?:
            errors.append(ValidationError(field: "endpoint", message: "must be an https URL, not \(other.typeName)"))
        }
        var callFormat = CallFormat.stream
        switch callFormatValue {
        case nil, .null?:
            break
        case .string(let raw)?:
            do throws(ValidationError) { callFormat = try CallFormat(raw) } catch { errors.append(error) }
        case let other?:
            errors.append(ValidationError(field: "call_format", message: "must be a string, not \(other.typeName)"))
        }
        var templates = NotificationTemplates.none
        if let templatesValue, templatesValue != .null {
            do throws(ValidationErrors) { templates = try NotificationTemplates.parse(templatesValue) } catch {
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
                let parsed = try ProviderCredentials.parse(value, service: service)
                if case .fcm(let account) = parsed, let projectID = provider?.projectID, projectID != account.projectID
                {
                    errors.append(
                        ValidationError(
                            field: "credentials.service_account.project_id",
                            message: "must match the provider's project_id (\(projectID))"))
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
