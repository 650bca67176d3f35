import Foundation
import RegistryCrypto

/// UUIDs derived from names (RFC 9562 §5.5, version 5: SHA-1 of namespace + name), so the same
/// event id always gives the same UUID and a retried push dedupes on the phone.
public enum NameBasedUUID {
    /// RFC 9562's DNS and URL namespaces.
    public static let dns = UUID(uuidString: "6ba7b810-9dad-11d1-80b4-00c04fd430c8")!
    public static let url = UUID(uuidString: "6ba7b811-9dad-11d1-80b4-00c04fd430c8")!

    /// The namespace of call-event ids: v5 of the URL namespace and `urn:device-registry:call-event`,
    /// so a backend can compute the same UUIDs.
    public static let callEvents = v5(namespace: url, name: "urn:device-registry:call-event")

    public static func v5(namespace: UUID, name: String) -> UUID {
        let namespaceBytes = withUnsafeBytes(of: namespace.uuid) { Array($0) }
        var hash = SHA1.hash(namespaceBytes + Array(name.utf8))
        hash[6] = hash[6] & 0x0F | 0x50  // version 5
        hash[8] = hash[8] & 0x3F | 0x80  // RFC 9562 variant
        let bytes = hash
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }

    /// The event id itself when it is a UUID (lowercase), else its v5 UUID in `callEvents`.
    public static func eventUUID(_ eventID: String) -> String {
        (UUID(uuidString: eventID) ?? v5(namespace: callEvents, name: eventID)).uuidString.lowercased()
    }
}
