import CallPush
import Encodings
import Foundation
import HTTPServer
import NIOCore
import RegistryCore

/// Every JSON that holds a device, written straight into a buffer: the one way a device is
/// rendered, whatever the route. A user's listing is the hottest read, and JSONEncoder (a boxed
/// value per field, keys sorted again for every object) took a quarter of the service's CPU per
/// listing. Keys are in sorted order, an absent field is `null` (in a device) or left out (the
/// optional fields of a registration), `/` is not escaped: what JSONEncoder wrote with the
/// server's settings before.
enum DeviceJSON {
    /// `GET /v1/users/{user_id}/devices`: `{"devices":[…]}`.
    static func devicesBody(_ devices: [Device]) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(64 + devices.count * 480)
        buffer.writeStaticString(#"{"devices":"#)
        writeArray(devices, to: &buffer, write)
        buffer.writeStaticString("}")
        return buffer
    }

    /// `GET /v1/devices`: `{"devices":[…],"next_cursor":…}`, the cursor `null` on the last page.
    static func pageBody(_ devices: [Device], nextCursor: ListCursor?) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(96 + devices.count * 480)
        buffer.writeStaticString(#"{"devices":"#)
        writeArray(devices, to: &buffer, write)
        buffer.writeStaticString(#","next_cursor":"#)
        writeString(nextCursor?.encoded, to: &buffer)
        buffer.writeStaticString("}")
        return buffer
    }

    /// `GET /v1/devices/{token}`: `{"device":…}`.
    static func deviceBody(_ device: Device) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(512)
        buffer.writeStaticString(#"{"device":"#)
        write(device, to: &buffer)
        buffer.writeStaticString("}")
        return buffer
    }

    /// The answer to a registration: `{"device","evicted_tokens","previous_user_id"?,
    /// "replaced_token"?,"result"}`.
    /// `payloadKey` is the key this registration stored, shown here once and never again.
    static func registrationBody(_ outcome: RegistrationOutcome, payloadKey: PayloadKey? = nil) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(640)
        writeRegistration(outcome, payloadKey: payloadKey, to: &buffer)
        return buffer
    }

    /// A SIP registration's answer: `{"registrations":[…]}`, one per token of the contact.
    static func registrationsBody(_ outcomes: [RegistrationOutcome]) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(16 + outcomes.count * 640)
        buffer.writeStaticString(#"{"registrations":"#)
        writeArray(outcomes, to: &buffer) { writeRegistration($0, to: &$1) }
        buffer.writeStaticString("}")
        return buffer
    }

    /// One item of a batch's answer.
    enum BatchItem {
        case registered(index: Int, RegistrationOutcome)
        case failed(index: Int, Problem)
    }

    /// `POST /v1/devices/batch`: `{"results":[…]}`, each item its registration's fields (or its
    /// `error`) beside its `index` and `status`.
    static func batchBody(_ items: [BatchItem]) throws -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(16 + items.count * 700)
        buffer.writeStaticString(#"{"results":"#)
        try writeArray(items, to: &buffer) { item, buffer in
            switch item {
            case .registered(let index, let outcome):
                writeRegistration(outcome, index: index, status: outcome.result == .created ? 201 : 200, to: &buffer)
            case .failed(let index, let problem):
                buffer.writeStaticString(#"{"error":"#)
                buffer.writeBytes(try NDJSON.encoder.encode(problem))
                buffer.writeStaticString(#","index":"#)
                buffer.writeString(String(index))
                buffer.writeStaticString(#","status":"#)
                buffer.writeString(String(problem.status))
                buffer.writeStaticString("}")
            }
        }
        buffer.writeStaticString("}")
        return buffer
    }

    /// Export: one device per line.
    static func lines(_ devices: [Device]) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(devices.count * 480)
        for device in devices {
            write(device, to: &buffer)
            buffer.writeStaticString("\n")
        }
        return buffer
    }

    /// A batch item adds its `index` and `status`, in their sorted places.
    private static func writeRegistration(
        _ outcome: RegistrationOutcome, index: Int? = nil, payloadKey: PayloadKey? = nil, status: Int? = nil,
        to buffer: inout ByteBuffer
    ) {
        buffer.writeStaticString(#"{"device":"#)
        write(outcome.device, to: &buffer)
        buffer.writeStaticString(#","evicted_tokens":"#)
        writeArray(outcome.evictedTokens, to: &buffer) { writeString($0, to: &$1) }
        if let index {
            buffer.writeStaticString(#","index":"#)
            buffer.writeString(String(index))
        }
        if let payloadKey {
            buffer.writeStaticString(#","payload_key":"#)
            writeString(Data(payloadKey.bytes).base64EncodedString(), to: &buffer)
        }
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
        if let status {
            buffer.writeStaticString(#","status":"#)
            buffer.writeString(String(status))
        }
        buffer.writeStaticString("}")
    }

    private static func writeArray<Element>(
        _ elements: [Element], to buffer: inout ByteBuffer,
        _ writeElement: (Element, inout ByteBuffer) throws -> Void
    ) rethrows {
        buffer.writeStaticString("[")
        for (index, element) in elements.enumerated() {
            if index > 0 { buffer.writeStaticString(",") }
            try writeElement(element, &buffer)
        }
        buffer.writeStaticString("]")
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

    /// A JSON string (or `null`), escaped as every JSON writer here escapes (`JSONText`).
    private static func writeString(_ value: String?, to buffer: inout ByteBuffer) {
        guard let value else {
            buffer.writeStaticString("null")
            return
        }
        JSONText.writeString(value) { buffer.writeBytes($0) }
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
