import Foundation
import RegistryCore
import RegistryCrypto
import Testing

@testable import CallPush

/// SignalWire's call invite: the core message's fields, its two wrappers, and an invite a phone
/// can open (base64 → AES-256-GCM → inflate → JSON) with the key it was given.
@Suite struct SignalWirePayloadTests {
    static let key = PayloadKey((0..<32).map { UInt8($0) })!
    static let keyedVoIP = PushTarget(
        userID: Fixtures.receiver, tokenType: .voip, bundleID: Fixtures.bundleID, payloadKey: key)
    static let keyedAndroid = PushTarget(userID: Fixtures.receiver, tokenType: .fcm, payloadKey: key)

    /// The core message out of either wrapper, as an ordered list of string fields.
    static func message(_ target: PushTarget) throws -> [(String, String)] {
        let composed = try Fixtures.composer(.signalwire).compose(Fixtures.event(.ring), for: target, now: Fixtures.now)
        let text: String
        switch composed.payload {
        case .apns(let body)?:
            guard case .object(let top) = body, top.map(\.key) == ["aps"], case .object(let aps) = top[0].value,
                aps.map(\.key) == ["alert"]
            else {
                Issue.record("not {\"aps\": {\"alert\": …}}: \(body.text)")
                return []
            }
            text = aps[0].value.text
        case .fcm(let members)?:
            #expect(members.text.hasPrefix(#"{"notification":{"body":"{\"encryption_type\""#))
            #expect(members.text.hasSuffix(#"},"data":{}}"#))
            guard case .object(let top) = members, case .object(let notification) = top[0].value,
                case .string(let body) = notification[0].value
            else { return [] }
            text = body
        case nil:
            Issue.record("nothing rendered: \(composed.plan)")
            return []
        }
        guard case .object(let members) = try JSONParser.parse(text) else { return [] }
        // JSONValue forgets the order; read it off the text instead.
        let keys = members.keys.sorted {
            text.range(of: "\"\($0)\":")!.lowerBound < text.range(of: "\"\($1)\":")!.lowerBound
        }
        return keys.map { key in
            guard case .string(let value) = members[key]! else {
                Issue.record("\(key) is not a string")
                return (key, "")
            }
            return (key, value)
        }
    }

    /// What the phone does with the key it was given: nil when the tag does not authenticate.
    static func open(_ sealed: SealedPayload, key: [UInt8]) throws -> [UInt8]? {
        try AESGCM.open(AESGCM.Box(ciphertext: sealed.ciphertext, tag: sealed.tag), key: key, nonce: sealed.iv)
    }

    static let order = [
        "encryption_type", "notification_uuid", "with_video", "incoming_caller_name", "incoming_caller_id", "invite",
        "title", "type", "iv", "tag", "version",
    ]

    @Test(arguments: [keyedVoIP, keyedAndroid])
    func anEncryptedInviteOpensWithTheDevicesKey(target: PushTarget) throws {
        let fields = try Self.message(target)
        #expect(fields.map(\.0) == Self.order)
        let value = Dictionary(uniqueKeysWithValues: fields)
        #expect(value["encryption_type"] == "aes_256_gcm")
        #expect(value["notification_uuid"] == NameBasedUUID.eventUUID("evt_01jqr5k8m3n4p6q7r8s9t0u1v3"))
        #expect(value["with_video"] == "false")
        #expect(value["incoming_caller_name"] == "John Doe")
        #expect(value["incoming_caller_id"] == "+14155551234")
        #expect(value["title"] == "John Doe")
        #expect(value["type"] == "call_invite")
        #expect(value["version"] == SignalWirePayload.version)

        // What the phone does: base64 → AES-256-GCM → inflate → JSON.
        let sealed = SealedPayload(
            ciphertext: Array(Data(base64Encoded: value["invite"]!)!), iv: Array(Data(base64Encoded: value["iv"]!)!),
            tag: Array(Data(base64Encoded: value["tag"]!)!))
        #expect(sealed.iv.count == 12)
        #expect(sealed.tag.count == 16)
        let compressed = try #require(try Self.open(sealed, key: Self.key.bytes))
        let json = try #require(Inflate.decompress(compressed))
        #expect(
            String(decoding: json, as: UTF8.self) == Fixtures.event(.ring).fullJSON(receiver: Fixtures.receiver).text)
    }

    @Test func aTamperedTagOrCiphertextOrWrongKeyFailsToOpen() throws {
        let value = Dictionary(uniqueKeysWithValues: try Self.message(Self.keyedVoIP))
        let sealed = SealedPayload(
            ciphertext: Array(Data(base64Encoded: value["invite"]!)!), iv: Array(Data(base64Encoded: value["iv"]!)!),
            tag: Array(Data(base64Encoded: value["tag"]!)!))
        #expect(try Self.open(sealed, key: Self.key.bytes) != nil)
        var tag = sealed.tag
        tag[0] ^= 1
        #expect(
            try Self.open(
                SealedPayload(ciphertext: sealed.ciphertext, iv: sealed.iv, tag: tag), key: Self.key.bytes) == nil)
        var ciphertext = sealed.ciphertext
        ciphertext[ciphertext.count / 2] ^= 0x80
        #expect(
            try Self.open(
                SealedPayload(ciphertext: ciphertext, iv: sealed.iv, tag: sealed.tag), key: Self.key.bytes) == nil)
        #expect(try Self.open(sealed, key: [UInt8](repeating: 7, count: 32)) == nil)
    }

    @Test func eachPushGetsAFreshIV() throws {
        let first = Dictionary(uniqueKeysWithValues: try Self.message(Self.keyedVoIP))
        let second = Dictionary(uniqueKeysWithValues: try Self.message(Self.keyedVoIP))
        #expect(first["iv"] != second["iv"])
        #expect(first["invite"] != second["invite"])
    }

    @Test(arguments: [Fixtures.iOSVoIP, Fixtures.android])
    func withoutAKeyTheInviteIsOnlyCompressed(target: PushTarget) throws {
        let fields = try Self.message(target)
        #expect(fields.map(\.0) == Self.order)
        let value = Dictionary(uniqueKeysWithValues: fields)
        #expect(value["encryption_type"] == "none")
        #expect(value["iv"] == "")
        #expect(value["tag"] == "")
        let json = try #require(Inflate.decompress(Array(Data(base64Encoded: value["invite"]!)!)))
        #expect(
            String(decoding: json, as: UTF8.self) == Fixtures.event(.ring).fullJSON(receiver: Fixtures.receiver).text)
    }

    @Test func anInviteNamesOnlyItsReceiverHoweverManyAreCalled() throws {
        // A thousand callees with long ids: their list alone would be some 40 KB.
        let users = try (0..<CallEvent.maxUsers).map { try UserID("user-\($0)-" + String(repeating: "x", count: 30)) }
        let crowd = try CallEvent(
            id: "evt_crowd", type: .ring, userIDs: users, call: CallDetails(id: "c"), caller: Caller(id: "j"),
            arrivedAt: Fixtures.now)
        let target = PushTarget(userID: users[7], tokenType: .voip, bundleID: Fixtures.bundleID)
        let composed = try Fixtures.composer(.signalwire).compose(crowd, for: target, now: Fixtures.now)
        guard case .apns(let body)? = composed.payload else {
            Issue.record("no APNs body: \(composed.plan)")
            return
        }
        #expect(body.bytes.count <= 5120)
        guard case .object(let top) = try JSONParser.parse(body.text), case .object(let aps)? = top["aps"],
            case .object(let alert)? = aps["alert"], case .string(let invite)? = alert["invite"]
        else {
            Issue.record("no invite in \(body.text)")
            return
        }
        let json = try #require(Inflate.decompress(Array(Data(base64Encoded: invite)!)))
        #expect(String(decoding: json, as: UTF8.self) == crowd.fullJSON(receiver: users[7]).text)
        #expect(String(decoding: json, as: UTF8.self).contains(#""user_ids":["user-7-"#))
    }

    /// The whole iOS body, with the invite (zlib's bytes vary by version) set aside.
    @Test func theIOSBodyAroundTheInvite() throws {
        let rendered = try Fixtures.render(.signalwire, Fixtures.event(.ring), Fixtures.iOSVoIP)
        let invite = Dictionary(uniqueKeysWithValues: try Self.message(Fixtures.iOSVoIP))["invite"]!
        let uuid = NameBasedUUID.eventUUID("evt_01jqr5k8m3n4p6q7r8s9t0u1v3")
        #expect(
            rendered.replacingOccurrences(of: invite, with: "INVITE")
                == Fixtures.compact(
                    """
                    {"aps":{"alert":{"encryption_type":"none","notification_uuid":"\(uuid)","with_video":"false",
                     "incoming_caller_name":"John Doe","incoming_caller_id":"+14155551234","invite":"INVITE",
                     "title":"John Doe","type":"call_invite","iv":"","tag":"","version":"1"}}}
                    """))
    }

    @Test func theKeyNeverShowsInItsDescription() {
        #expect(!"\(Self.key)".contains("1"))
        #expect("\(Self.keyedVoIP)".contains("redacted"))
        #expect(PayloadKey([1, 2, 3]) == nil)
    }
}
