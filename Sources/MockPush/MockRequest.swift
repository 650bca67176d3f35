/// One request as the mock's endpoints see it, after HTTP/2 framing.
struct MockRequest: Sendable {
    let method: String
    let path: String
    /// Lowercased names; `:authority` arrives as `host`.
    let headers: [String: String]
    let body: [UInt8]
    /// Which accepted connection it came on, counting from 1.
    let connection: Int
    /// The topics of the client certificate its connection presented (verified in the
    /// handshake); nil when it presented none.
    let clientCertificateTopics: [String]?

    func header(_ name: String) -> String? { headers[name] }

    /// The bearer credential of `authorization`, whatever the scheme's case.
    var bearerToken: String? {
        guard let value = headers["authorization"], value.lowercased().hasPrefix("bearer ") else { return nil }
        return String(value.dropFirst("bearer ".count))
    }
}
