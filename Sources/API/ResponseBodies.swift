import CallPush
import Encodings
import RegistryCore
import Store

/// The JSON bodies the API answers with (snake_case, as openapi.yaml describes them).
struct DeletedBody: Encodable { let deleted: Int }
struct StatusBody: Encodable { let status: String }
struct ReadyBody: Encodable {
    let status: String
    let unhealthy_providers: [UnhealthyProvider]
    let apns_certificates: [APNsCertificateBody]
}
/// An APNs client certificate's expiry in `/readyz`.
struct APNsCertificateBody: Encodable {
    let provider: String
    let not_valid_after: String
    let state: String
}
struct UnhealthyProvider: Encodable {
    let name: String
    let reason: String
}

struct ProviderBody: Encodable {
    let name: String
    let service: String
    let topic: String?
    let project_id: String?
    let endpoint: String?
    let call_format: String
    let templates: [String: TemplateBody]
    let credentials_configured: Bool
    let credentials: CredentialsBody?
    let created_at: String
    let updated_at: String

    init(_ stored: StoredProvider) {
        name = stored.provider.name.value
        service = stored.provider.service.rawValue
        topic = stored.provider.topic
        project_id = stored.provider.projectID
        endpoint = stored.endpoint
        call_format = stored.callFormat.rawValue
        templates = Dictionary(
            uniqueKeysWithValues: stored.templates.entries.map { type, entry in
                (type.rawValue, TemplateBody(title: entry.title?.source, body: entry.body?.source))
            })
        credentials_configured = stored.credentials != nil
        credentials = stored.credentials.map(CredentialsBody.init)
        created_at = RFC3339.format(stored.createdAt)
        updated_at = RFC3339.format(stored.updatedAt)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(service, forKey: .service)
        try container.encode(topic, forKey: .topic)
        try container.encode(project_id, forKey: .project_id)
        try container.encode(endpoint, forKey: .endpoint)
        try container.encode(call_format, forKey: .call_format)
        try container.encode(templates, forKey: .templates)
        try container.encode(credentials_configured, forKey: .credentials_configured)
        try container.encode(credentials, forKey: .credentials)
        try container.encode(created_at, forKey: .created_at)
        try container.encode(updated_at, forKey: .updated_at)
    }
    private enum CodingKeys: String, CodingKey {
        case name, service, topic, project_id, endpoint, call_format, templates, credentials_configured, credentials
        case created_at, updated_at
    }
}

/// One event type's templates as saved; an absent `title` or `body` is left out.
struct TemplateBody: Encodable {
    let title: String?
    let body: String?
}
/// What may be shown of stored credentials: ids and the public key's fingerprint.
struct CredentialsBody: Encodable {
    let team_id: String?
    let key_id: String?
    let client_email: String?
    let key_fingerprint: String

    init(_ facts: CredentialFacts) {
        team_id = facts.teamID
        key_id = facts.keyID
        client_email = facts.clientEmail
        key_fingerprint = facts.keyFingerprint
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(team_id, forKey: .team_id)
        try container.encode(key_id, forKey: .key_id)
        try container.encode(client_email, forKey: .client_email)
        try container.encode(key_fingerprint, forKey: .key_fingerprint)
    }
    private enum CodingKeys: String, CodingKey { case team_id, key_id, client_email, key_fingerprint }
}
struct ProviderEnvelope: Encodable { let provider: ProviderBody }
struct ProvidersBody: Encodable { let providers: [ProviderBody] }

struct APIKeyBody: Encodable {
    let id: String
    let name: String
    let scopes: [String]
    let created_at: String
    let last_used_at: String?
    let revoked_at: String?

    init(_ record: APIKeyRecord) {
        id = record.id
        name = record.name
        scopes = record.scopes.map(\.rawValue)
        created_at = RFC3339.format(record.createdAt)
        last_used_at = record.lastUsedAt.map(RFC3339.format)
        revoked_at = record.revokedAt.map(RFC3339.format)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(scopes, forKey: .scopes)
        try container.encode(created_at, forKey: .created_at)
        try container.encode(last_used_at, forKey: .last_used_at)
        try container.encode(revoked_at, forKey: .revoked_at)
    }
    private enum CodingKeys: String, CodingKey { case id, name, scopes, created_at, last_used_at, revoked_at }
}
struct CreatedKeyBody: Encodable {
    let key: APIKeyBody
    let secret: String
}
struct KeysBody: Encodable { let keys: [APIKeyBody] }
struct FeedbackBody: Encodable { let action: String }
