import Encodings
import Foundation
import NIOCore
import RegistryCore

/// `{"devices":[…]}` written straight into a buffer. A user's listing is the hottest read, and
/// JSONEncoder (a boxed value per field, keys sorted again for every object) took a quarter of
/// the service's CPU per listing. The bytes are the ones JSONEncoder wrote for `[Device]` there
/// with the shared settings: keys in sorted order, `null` for an absent field, `/` unescaped.
enum DeviceJSON {
    static func devicesBody(_ devices: [Device]) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(64 + devices.count * 480)
        buffer.writeStaticString(#"{"devices":["#)
        for (index, device) in devices.enumerated() {
            if index > 0 { buffer.writeStaticString(",") }
            write(device, to: &buffer)
        }
        buffer.writeStaticString("]}")
        return buffer
    }

    /// The answer to a registration: what JSONEncoder wrote for `RegistrationBody` (keys
    /// sorted; `previous_user_id` and `replaced_token` only when there is one).
    static func registrationBody(_ outcome: RegistrationOutcome) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(640)
        buffer.writeStaticString(#"{"device":"#)
        write(outcome.device, to: &buffer)
        buffer.writeStaticString(#","evicted_tokens":["#)
        for (index, token) in outcome.evictedTokens.enumerated() {
            if index > 0 { buffer.writeStaticString(",") }
            writeString(token, to: &buffer)
        }
        buffer.writeStaticString("]")
        if let previous = outcome.previousUserID {
            buffer.writeStaticString(#","previous_user_id":"#)
            writeString(previous.value, to: &buffer)
        }
        if let replaced = outcome.replacedTokens.first {
            buffer.writeStaticString(#","replaced_token":"#)
            writeString(replaced, to: &buffer)
        }
        buffer.writeStaticString(#","result":"#)
        writeString(outcome.result.rawValue, to: &buffer)
        buffer.writeStaticString("}")
        return buffer
    }

    /// The fields in the order `.sortedKeys` gives them.
    private static func write(_ device: Device, to buffer: inout ByteBuffer) {
        buffer.writeStaticString(#"{"app_version":"#)
        writeString(device.appVersion?.value, to: &buffer)
        buffer.writeStaticString(#","created_at":"#)
        writeTimestamp(device.createdAt, to: &buffer)
        buffer.writeStaticString(#","device_id":"#)
        writeString(device.deviceID?.value, to: &buffer)
        buffer.writeStaticString(#","disabled_at":"#)
        writeTimestamp(device.disabledAt, to: &buffer)
        buffer.writeStaticString(#","disabled_reason":"#)
        writeString(device.disabledReason, to: &buffer)
        buffer.writeStaticString(#","environment":"#)
        writeString(device.environment?.rawValue, to: &buffer)
        buffer.writeStaticString(#","last_seen_at":"#)
        writeTimestamp(device.lastSeenAt, to: &buffer)
        buffer.writeStaticString(#","locale":"#)
        writeString(device.locale?.value, to: &buffer)
        buffer.writeStaticString(#","platform":"#)
        writeString(device.platform?.value, to: &buffer)
        buffer.writeStaticString(#","provider":"#)
        writeString(device.provider.value, to: &buffer)
        buffer.writeStaticString(#","token":"#)
        writeString(device.token.value, to: &buffer)
        buffer.writeStaticString(#","type":"#)
        writeString(device.type.rawValue, to: &buffer)
        buffer.writeStaticString(#","updated_at":"#)
        writeTimestamp(device.updatedAt, to: &buffer)
        buffer.writeStaticString(#","user_id":"#)
        writeString(device.userID.value, to: &buffer)
        buffer.writeStaticString("}")
    }

    /// A JSON string (or `null`): `"` and `\` escaped, control characters as JSONEncoder writes
    /// them (`\n`, `\r`, `\t`, `\b`, `\f`, otherwise `\u00XX`), everything else as UTF-8.
    private static func writeString(_ value: String?, to buffer: inout ByteBuffer) {
        guard var value else {
            buffer.writeStaticString("null")
            return
        }
        buffer.writeStaticString("\"")
        value.withUTF8 { bytes in
            var plainStart = 0
            for index in bytes.indices {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                buffer.writeBytes(UnsafeBufferPointer(rebasing: bytes[plainStart..<index]))
                switch byte {
                case UInt8(ascii: "\""): buffer.writeStaticString(#"\""#)
                case UInt8(ascii: "\\"): buffer.writeStaticString(#"\\"#)
                case 0x0A: buffer.writeStaticString(#"\n"#)
                case 0x0D: buffer.writeStaticString(#"\r"#)
                case 0x09: buffer.writeStaticString(#"\t"#)
                case 0x08: buffer.writeStaticString(#"\b"#)
                case 0x0C: buffer.writeStaticString(#"\f"#)
                default:
                    let hex: StaticString = "0123456789abcdef"
                    buffer.writeStaticString(#"\u00"#)
                    buffer.writeInteger(hex.utf8Start[Int(byte >> 4)])
                    buffer.writeInteger(hex.utf8Start[Int(byte & 0x0F)])
                }
                plainStart = index + 1
            }
            buffer.writeBytes(UnsafeBufferPointer(rebasing: bytes[plainStart...]))
        }
        buffer.writeStaticString("\"")
    }

    /// A timestamp as JSON: RFC 3339 needs no escaping, so its bytes go straight in (or `null`).
    private static func writeTimestamp(_ date: Date?, to buffer: inout ByteBuffer) {
        guard let date else {
            buffer.writeStaticString("null")
            return
        }
        buffer.writeStaticString("\"")
        RFC3339.withUTF8(date) { bytes -> Void in buffer.writeBytes(bytes) }
        buffer.writeStaticString("\"")
    }
}
