import Encodings
import Foundation
import RegistryCore

/// How one notification is sent to APNs, constructed only valid: what becomes its request
/// headers besides the authorization.
public struct APNsSendOptions: Sendable, Equatable {
    public let pushType: APNsPushType
    /// 10 (immediately), 5 (power-considerate) or 1 (lowest); nil lets APNs default to 10.
    public let priority: Int?
    /// When APNs stops trying to deliver; nil lets APNs decide, the epoch means "now or never".
    public let expiration: Date?
    public let collapseID: String?

    static let priorities: Set = [1, 5, 10]
    static let maximumCollapseIDBytes = 64

    public init(pushType: APNsPushType, priority: Int? = nil, expiration: Date? = nil, collapseID: String? = nil)
        throws(ValidationErrors)
    {
        var errors: [ValidationError] = []
        if let priority, !Self.priorities.contains(priority) {
            errors.append(ValidationError(field: "apns.priority", message: "must be 10, 5 or 1"))
        }
        // APNs refuses a background push at priority 10; say so before sending.
        if pushType == .background, let priority, priority != 5, Self.priorities.contains(priority) {
            errors.append(ValidationError(field: "apns.priority", message: "must be 5 (or 1) for a background push"))
        }
        if let collapseID, collapseID.isEmpty || collapseID.utf8.count > Self.maximumCollapseIDBytes {
            errors.append(ValidationError(field: "apns.collapse_id", message: "must be 1–64 bytes"))
        }
        guard errors.isEmpty else { throw ValidationErrors(errors) }
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
    }

    /// The request headers, in a fixed order. `apnsID` is the same on every attempt of one push,
    /// so APNs and its logs see retries as one notification.
    public func headers(bundleID: String, apnsID: UUID) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = [
            ("apns-push-type", pushType.rawValue),
            ("apns-topic", pushType.topic(bundleID: bundleID)),
            ("apns-id", Self.text(of: apnsID)),
        ]
        if let priority { headers.append(("apns-priority", String(priority))) }
        if let expiration {
            headers.append(("apns-expiration", String(Int64(max(0, expiration.timeIntervalSince1970.rounded(.down))))))
        }
        if let collapseID { headers.append(("apns-collapse-id", collapseID)) }
        return headers
    }

    /// `uuidString.lowercased()` without either: on Linux Foundation formats a UUID with
    /// `sprintf`, ~1% of the service's CPU per push in a profile of `POST /v1/push`, and
    /// lowercasing it made a second string.
    static func text(of uuid: UUID) -> String {
        let hex = withUnsafeBytes(of: uuid.uuid) { Hex.encode($0.bindMemory(to: UInt8.self)) }
        return String(unsafeUninitializedCapacity: 36) { output in
            var written = 0
            for (index, digit) in hex.utf8.enumerated() {
                // 8-4-4-4-12: a dash before hex digits 8, 12, 16 and 20.
                if index == 8 || index == 12 || index == 16 || index == 20 {
                    output[written] = UInt8(ascii: "-")
                    written += 1
                }
                output[written] = digit
                written += 1
            }
            return written
        }
    }
}
