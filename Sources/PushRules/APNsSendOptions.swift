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

    /// The request headers, in a fixed order, each handed to `add`: the sender writes them
    /// straight into its request (an array of them was an allocation per push). `topic` is
    /// `pushType.topic(bundleID:)`, which the sender makes once per push type, not once per push.
    /// `apnsID` is the same on every attempt of one push, so APNs and its logs see retries as one
    /// notification.
    public func headers(topic: String, apnsID: UUID, _ add: (_ name: String, _ value: String) -> Void) {
        add("apns-push-type", pushType.rawValue)
        add("apns-topic", topic)
        add("apns-id", Self.text(of: apnsID))
        if let priority { add("apns-priority", String(priority)) }
        if let expiration {
            add("apns-expiration", String(Int64(max(0, expiration.timeIntervalSince1970.rounded(.down)))))
        }
        if let collapseID { add("apns-collapse-id", collapseID) }
    }

    /// `uuidString.lowercased()` without either, in one allocation: on Linux Foundation formats a
    /// UUID with `sprintf`, ~1% of the service's CPU per push in a profile of `POST /v1/push`,
    /// lowercasing it made a second string, and hex digits made first a third.
    static func text(of uuid: UUID) -> String {
        withUnsafeBytes(of: uuid.uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { output in
                var written = 0
                for (index, byte) in bytes.enumerated() {
                    // 8-4-4-4-12 hex digits: a dash before bytes 4, 6, 8 and 10.
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        output[written] = UInt8(ascii: "-")
                        written += 1
                    }
                    Hex.write(byte, into: output, at: written)
                    written += 2
                }
                return written
            }
        }
    }
}
