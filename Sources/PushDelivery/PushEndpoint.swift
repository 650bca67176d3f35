import RegistryCore

/// The base URL of a push service: `https://host[:port]`, nothing after. Constructed only valid.
public struct PushEndpoint: Sendable, Hashable, CustomStringConvertible {
    public let host: String
    public let port: Int

    public static let apnsProduction = PushEndpoint(validHost: "api.push.apple.com", port: 443)
    public static let apnsSandbox = PushEndpoint(validHost: "api.sandbox.push.apple.com", port: 443)
    public static let fcm = PushEndpoint(validHost: "fcm.googleapis.com", port: 443)

    private init(validHost: String, port: Int) {
        host = validHost
        self.port = port
    }

    /// Only `https` (certificates are always verified), no path, query or user info.
    public init(_ url: String, field: String = "endpoint") throws(ValidationError) {
        let error = ValidationError(
            field: field, message: "must be an https URL with no path, like https://push.example:8443")
        guard url.hasPrefix("https://") else { throw error }
        var authority = Substring(url.dropFirst("https://".count))
        if authority.hasSuffix("/") { authority = authority.dropLast() }
        guard !authority.isEmpty, !authority.contains(where: { "/?#@ ".contains($0) }) else { throw error }
        let parts = authority.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 2, !parts[0].isEmpty else { throw error }
        var port = 443
        if parts.count == 2 {
            guard let number = Int(parts[1]), (1...65_535).contains(number) else { throw error }
            port = number
        }
        self.init(validHost: String(parts[0]).lowercased(), port: port)
    }

    /// Splits an absolute https URL (a service account's `token_uri`) into endpoint and path.
    static func split(_ url: String, field: String) throws(ValidationError) -> (PushEndpoint, path: String) {
        guard url.hasPrefix("https://") else {
            throw ValidationError(field: field, message: "must be an https URL")
        }
        let rest = url.dropFirst("https://".count)
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        return (
            try PushEndpoint("https://" + rest[..<slash], field: field),
            slash == rest.endIndex ? "/" : String(rest[slash...])
        )
    }

    /// The `:authority` pseudo-header: the port only when it is not 443.
    public var authority: String { port == 443 ? host : "\(host):\(port)" }

    public var description: String { "https://\(authority)" }
}
