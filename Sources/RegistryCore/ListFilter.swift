import Encodings
import Foundation

/// The validated query of the admin device listing (`GET /v1/admin/devices?…`).
///
/// Every parameter is optional; `limit` defaults to 100 and is capped at 1000 so one request
/// cannot pull the whole table. Unknown parameters are refused (with a did-you-mean) rather than
/// ignored, because an ignored misspelt filter silently widens the result.
public struct ListFilter: Sendable, Hashable {
    public static let defaultLimit = 100
    public static let maxLimit = 1000
    public static let parameters = ["limit", "cursor", "seen_before", "type", "environment", "user_id", "provider"]

    public var limit: Int
    /// Start after this row; nil for the first page.
    public var cursor: ListCursor?
    /// Only devices whose `last_seen_at` is strictly before this instant.
    public var seenBefore: Date?
    public var type: TokenType?
    public var environment: APNsEnvironment?
    public var userID: UserID?
    public var provider: ProviderName?

    public init(
        limit: Int = defaultLimit, cursor: ListCursor? = nil, seenBefore: Date? = nil, type: TokenType? = nil,
        environment: APNsEnvironment? = nil, userID: UserID? = nil, provider: ProviderName? = nil
    ) {
        self.limit = limit
        self.cursor = cursor
        self.seenBefore = seenBefore
        self.type = type
        self.environment = environment
        self.userID = userID
        self.provider = provider
    }

    /// Parses decoded query parameters (name → value), reporting every problem at once.
    public static func parse(_ query: [String: String]) throws(ValidationErrors) -> ListFilter {
        var errors: [ValidationError] = []
        func parsed<T>(_ name: String, _ parse: (String) throws(ValidationError) -> T) -> T? {
            guard let raw = query[name] else { return nil }
            do { return try parse(raw) } catch {
                errors.append(error)
                return nil
            }
        }
        var filter = ListFilter()
        filter.limit =
            parsed("limit") { raw throws(ValidationError) in
                guard let limit = Int(raw), (1...maxLimit).contains(limit) else {
                    throw ValidationError(field: "limit", message: "must be an integer from 1 to \(maxLimit)")
                }
                return limit
            } ?? defaultLimit
        filter.cursor = parsed("cursor") { raw throws(ValidationError) in try ListCursor(raw) }
        filter.seenBefore = parsed("seen_before") { raw throws(ValidationError) in
            guard let date = RFC3339.parse(raw) else {
                throw ValidationError(
                    field: "seen_before", message: "must be an RFC 3339 timestamp like 2026-01-31T12:00:00Z")
            }
            return date
        }
        filter.type = parsed("type") { raw throws(ValidationError) in try TokenType(raw) }
        filter.environment = parsed("environment") { raw throws(ValidationError) in try APNsEnvironment(raw) }
        filter.userID = parsed("user_id") { raw throws(ValidationError) in try UserID(raw) }
        filter.provider = parsed("provider") { raw throws(ValidationError) in try ProviderName(raw) }
        for name in query.keys.sorted() where !parameters.contains(name) {
            errors.append(
                ValidationError(field: name, message: FieldSuggestion.unknownFieldMessage(name, known: parameters)))
        }
        guard errors.isEmpty else { throw ValidationErrors(errors) }
        return filter
    }
}
