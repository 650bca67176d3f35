/// A configured push provider: the credentials live elsewhere; this is what routes a token.
///
/// - `apns` providers need `topic`, the app's bundle id (`com.example.app`); VoIP pushes go to
///   `<topic>.voip`, so the topic is the plain bundle id.
/// - `fcm` providers may have `projectID`: the Firebase project id (`my-app-123`) or the numeric
///   sender id, which SIP registrations use to pick a provider (`pn-param`).
/// Giving the other service's field is refused, not ignored.
public struct Provider: Sendable, Hashable {
    public let name: ProviderName
    public let service: PushService
    public let topic: String?
    public let projectID: String?

    public init(name: ProviderName, service: PushService, topic: String? = nil, projectID: String? = nil)
        throws(ValidationErrors)
    {
        var errors: [ValidationError] = []
        switch service {
        case .apns:
            if let topic {
                if !Self.isBundleID(topic) {
                    errors.append(ValidationError(field: "topic", message: Self.bundleIDMessage))
                }
            } else {
                errors.append(
                    ValidationError(field: "topic", message: "is required for apns providers: the app's bundle id"))
            }
            if projectID != nil {
                errors.append(
                    ValidationError(
                        field: "project_id", message: "must be omitted for apns providers; it only applies to fcm"))
            }
        case .fcm:
            if topic != nil {
                errors.append(
                    ValidationError(
                        field: "topic", message: "must be omitted for fcm providers; it only applies to apns"))
            }
            if let projectID, !Self.isProjectID(projectID) {
                errors.append(ValidationError(field: "project_id", message: Self.projectIDMessage))
            }
        }
        guard errors.isEmpty else { throw ValidationErrors(errors) }
        self.name = name
        self.service = service
        self.topic = topic
        self.projectID = projectID
    }

    /// The provider admin body's fields: `name`, `service`, `topic`, `project_id`.
    public static let fields = ["name", "service", "topic", "project_id"]

    /// Parses a provider admin request body, reporting every problem at once.
    public static func parse(_ body: JSONValue) throws(ValidationErrors) -> Provider {
        var reader = JSONObjectReader(body, known: fields)
        let name = reader.value("name", required: true) { raw throws(ValidationError) in
            try ProviderName(raw, field: "name")
        }
        let service = reader.value("service", required: true) { raw throws(ValidationError) in try PushService(raw) }
        let topic = reader.string("topic")
        let projectID = reader.string("project_id")
        var provider: Provider?
        if let name, let service {
            do { provider = try Provider(name: name, service: service, topic: topic, projectID: projectID) } catch {
                for error in error.errors { reader.fail(error) }
            }
        }
        try reader.finish()
        guard let provider else { throw ValidationErrors(reader.errors) }  // Unreachable: a nil recorded an error.
        return provider
    }

    /// Whether this provider can deliver a token of `type` (apns/voip → apns, fcm → fcm).
    public func accepts(_ type: TokenType) -> Bool {
        type.service == service
    }

    /// `^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$`, at most 255 characters: Apple's bundle id alphabet.
    public static func isBundleID(_ text: String) -> Bool {
        let segments = text.split(separator: ".", omittingEmptySubsequences: false)
        return text.utf8.count <= 255 && segments.count >= 2
            && segments.allSatisfy { segment in
                !segment.isEmpty && ASCIISet.alphanumerics.union("-").containsAll(segment)
            }
    }

    /// `^[a-z0-9-]{1,64}$`: covers both Firebase project ids and numeric sender ids.
    public static func isProjectID(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count)
            && ASCIISet.lowercaseDigits.union("-").containsAll(text)
    }

    static let bundleIDMessage =
        "must be a bundle id like com.example.app: dot-separated letters, digits and '-', at most 255 characters"
    static let projectIDMessage =
        "must be a Firebase project id or numeric sender id: 1–64 lowercase letters, digits or '-'"
}
