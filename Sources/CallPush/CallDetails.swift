import Foundation
import RegistryCore

/// The call a push is about (the event's `call` object). `type` is Stream's call type, `default`
/// when not given; with `id` it makes Stream's `call_cid` (`default:call_123`). `metadata` is the
/// backend's own pass-through (React Native's `metadata`), kept as given.
public struct CallDetails: Sendable, Hashable {
    public let id: String
    public let type: String
    public let displayName: String?
    public let hasVideo: Bool
    public let startedAt: Date?
    public let metadata: [String: JSONValue]?

    public static let defaultType = "default"
    /// A push carries at most 4 KB (FCM, APNs alerts) or 5 KB (VoIP), and the metadata travels
    /// beside everything else, so it gets half.
    public static let maxMetadataBytes = 2048

    static let fields = ["id", "type", "display_name", "has_video", "started_at", "metadata"]

    /// Errors name `<field>.<name>`, e.g. `call.started_at`.
    public init(
        id: String, type: String? = nil, displayName: String? = nil, hasVideo: Bool = false, startedAt: Date? = nil,
        metadata: [String: JSONValue]? = nil, field: String = "call"
    ) throws(ValidationErrors) {
        var checks = ValidationCollector()
        let id = checks.check { () throws(ValidationError) in try CallFieldRules.id(id, field: "\(field).id") }
        let type = type.flatMap { raw in
            checks.check { () throws(ValidationError) in try CallFieldRules.callType(raw, field: "\(field).type") }
        }
        let displayName = displayName.flatMap { name in
            checks.check { () throws(ValidationError) in
                try CallFieldRules.text(name, field: "\(field).display_name")
            } ?? nil
        }
        if let metadata {
            checks.check { () throws(ValidationError) in try Self.checkSize(metadata, field: "\(field).metadata") }
        }
        try checks.finish()
        self.init(
            validatedID: id!, type: type, displayName: displayName, hasVideo: hasVideo, startedAt: startedAt,
            metadata: metadata)
    }

    private init(
        validatedID id: String, type: String?, displayName: String?, hasVideo: Bool, startedAt: Date?,
        metadata: [String: JSONValue]?
    ) {
        self.id = id
        self.type = type ?? Self.defaultType
        self.displayName = displayName
        self.hasVideo = hasVideo
        self.startedAt = startedAt
        self.metadata = metadata
    }

    /// Stream's call id: `<type>:<id>`.
    public var cid: String { "\(type):\(id)" }

    /// Reads the fields of a `call` object, recording every problem in `reader`.
    static func read(_ reader: inout JSONObjectReader) -> CallDetails? {
        let id = reader.value("id", required: true, CallFieldRules.id)
        let type = reader.value("type", CallFieldRules.callType)
        let displayName = reader.value("display_name") { raw, field throws(ValidationError) in
            try CallFieldRules.text(raw, field: field)
        }
        let hasVideo = reader.bool("has_video")
        let startedAt = reader.value("started_at", CallFieldRules.timestamp)
        var metadata: [String: JSONValue]?
        switch reader.raw("metadata") {
        case .object(let members)?:
            do {
                try checkSize(members, field: reader.name("metadata"))
                metadata = members
            } catch {
                reader.fail(error)
            }
        case let other?:
            reader.fail(
                ValidationError(field: reader.name("metadata"), message: "must be an object, not \(other.typeName)"))
        case nil:
            break
        }
        guard let id else { return nil }
        return CallDetails(
            validatedID: id, type: type, displayName: displayName ?? nil, hasVideo: hasVideo ?? false,
            startedAt: startedAt, metadata: metadata)
    }

    private static func checkSize(_ metadata: [String: JSONValue], field: String) throws(ValidationError) {
        let size = PayloadJSON(sorting: .object(metadata)).bytes.count
        guard size <= maxMetadataBytes else {
            throw ValidationError(
                field: field,
                message: "must be at most \(maxMetadataBytes) bytes as JSON (it is \(size)): pushes are small")
        }
    }
}
