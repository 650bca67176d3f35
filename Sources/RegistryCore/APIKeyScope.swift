/// What an API key may do. `admin` implies every other scope (and is the only scope for
/// provider and key management). `push:send` sends pushes (`POST /v1/push`) and nothing else: it
/// never reads a full token.
public enum APIKeyScope: String, Sendable, Hashable, Codable, CaseIterable {
    case devicesRead = "devices:read"
    case devicesWrite = "devices:write"
    case pushSend = "push:send"
    case admin

    public init(_ raw: String, field: String = "scopes") throws(ValidationError) {
        guard let scope = APIKeyScope(rawValue: raw) else {
            throw ValidationError(
                field: field, message: "must be one of: devices:read, devices:write, push:send, admin")
        }
        self = scope
    }
}

extension Set<APIKeyScope> {
    /// Whether a key holding these scopes may call a route that requires `required`.
    public func allows(_ required: APIKeyScope) -> Bool {
        contains(required) || contains(.admin)
    }
}
