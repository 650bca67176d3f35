/// Which APNs gateway a token belongs to. A token from a development build only works against
/// the sandbox gateway, so it is part of the registration, not of the provider.
public enum APNsEnvironment: String, Sendable, Hashable, Codable, CaseIterable {
    case production
    case sandbox

    public init(_ raw: String, field: String = "environment") throws(ValidationError) {
        guard let environment = APNsEnvironment(rawValue: raw) else {
            throw ValidationError(field: field, message: "must be one of: production, sandbox")
        }
        self = environment
    }
}
