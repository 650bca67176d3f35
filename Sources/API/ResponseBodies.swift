import Encodings
import RegistryCore
import Store

/// The JSON bodies the API answers with (snake_case, as openapi.yaml describes them).
struct DeletedBody: Encodable { let deleted: Int }
struct StatusBody: Encodable { let status: String }

struct ProviderBody: Encodable {
    let name: String
    let service: String
    let topic: String?
    let project_id: String?
    let created_at: String
    let updated_at: String

    init(_ stored: StoredProvider) {
        name = stored.provider.name.value
        service = stored.provider.service.rawValue
        topic = stored.provider.topic
        project_id = stored.provider.projectID
        created_at = RFC3339.format(stored.createdAt)
        updated_at = RFC3339.format(stored.updatedAt)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(service, forKey: .service)
        try container.encode(topic, forKey: .topic)
        try container.encode(project_id, forKey: .project_id)
        try container.encode(created_at, forKey: .created_at)
        try container.encode(updated_at, forKey: .updated_at)
    }
    private enum CodingKeys: String, CodingKey { case name, service, topic, project_id, created_at, updated_at }
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
