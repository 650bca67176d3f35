import Foundation
import PushRules
import RegistryCore
import Testing

@Suite struct PushRequestTests {
    static func parse(_ text: String, now: Date = Date(timeIntervalSince1970: 1_000_000)) throws(ValidationErrors)
        -> PushRequest
    {
        try PushRequest.parse(try! JSONParser.parse(text), now: now)
    }

    static func fields(_ text: String) -> Set<String> {
        do {
            _ = try parse(text)
            return []
        } catch {
            return Set(error.errors.map(\.field))
        }
    }

    @Test func theIssuesExampleParses() throws {
        let push = try Self.parse(
            """
            {"user_ids": ["alice", "alice", "bob"], "types": ["voip", "fcm"], "providers": ["ios-app"],
             "apns": {"push_type": "voip", "priority": 10, "expiration": "30s", "collapse_id": "c", "payload": {"b": 1, "a": "/"}},
             "fcm": {"message": {"data": {"k": "v"}, "android": {"priority": "high", "ttl": "30s"}}},
             "deadline": "20s"}
            """)
        #expect(push.userIDs.map(\.value) == ["alice", "bob"])
        #expect(push.types == [.voip, .fcm])
        #expect(push.deadline == .seconds(20))
        #expect(push.apns?.options.expiration == Date(timeIntervalSince1970: 1_000_030))
        #expect(push.apns?.options.collapseID == "c")
        #expect(String(decoding: push.apns?.payload ?? [], as: UTF8.self) == #"{"a":"/","b":1}"#)
        #expect(push.fcmMessage?.fields["data"] == .object(["k": .string("v")]))
        #expect(push.targets(type: .voip, provider: try ProviderName("ios-app")))
        #expect(!push.targets(type: .apns, provider: try ProviderName("ios-app")))
        #expect(!push.targets(type: .voip, provider: try ProviderName("other")))
    }

    @Test func theDeadlineDefaultsTo30Seconds() throws {
        #expect(try Self.parse(#"{"user_ids": ["a"], "fcm": {"message": {}}}"#).deadline == .seconds(30))
    }

    @Test func everyProblemIsNamed() {
        #expect(Self.fields(#"{"user_ids": []}"#) == ["user_ids", "apns"])
        #expect(
            Self.fields(#"{"user_ids": ["a", 1], "fcm": {"message": {}}, "extra": 1}"#) == ["user_ids[1]", "extra"])
        #expect(
            Self.fields(#"{"user_ids": ["a"], "apns": {"push_type": "voip", "priority": 3, "payload": []}}"#)
                == ["apns.payload", "apns.priority"])
        #expect(Self.fields(#"{"user_ids": ["a"], "apns": {"push_type": "x", "payload": {}}}"#) == ["apns.push_type"])
        #expect(
            Self.fields(#"{"user_ids": ["a"], "apns": {"push_type": "background", "priority": 10, "payload": {}}}"#)
                == ["apns.priority"])
        #expect(
            Self.fields(#"{"user_ids": ["a"], "fcm": {"message": {"token": "t", "data": {"n": 1}}}}"#)
                == ["fcm.message.token", "fcm.message.data.n"])
        #expect(Self.fields(#"{"user_ids": ["a"], "fcm": {"message": {}}, "deadline": "10m"}"#) == ["deadline"])
        #expect(Self.fields(#"{"user_ids": ["a"], "fcm": {"message": {}}, "types": ["sms"]}"#) == ["types[0]"])
        let tooMany = (0...PushRequest.maximumUsers).map { "\"u\($0)\"" }.joined(separator: ",")
        #expect(Self.fields(#"{"user_ids": [\#(tooMany)], "fcm": {"message": {}}}"#) == ["user_ids"])
    }
}
