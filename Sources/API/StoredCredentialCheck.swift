import PushEngine

/// What the master key made of the stored provider credentials at start.
public struct StoredCredentialCheck: Sendable {
    /// Providers whose credentials it opened.
    public let opened: [String]
    /// Providers whose credentials it could not open, with why (never the secret).
    public let unreadable: [(name: String, reason: String)]
}

extension RegistryAPI {
    /// Tries to open every stored provider credential (`Engine.openStoredCredentials`). Throws
    /// `RegistryError.unavailable` when the database does not answer.
    public func checkStoredCredentials() async throws -> StoredCredentialCheck {
        let (opened, unreadable) = try await context.engine.openStoredCredentials()
        return StoredCredentialCheck(opened: opened, unreadable: unreadable)
    }
}
