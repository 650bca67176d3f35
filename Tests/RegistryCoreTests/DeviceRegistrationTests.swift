import Foundation
import Testing

@testable import RegistryCore

@Suite struct DeviceRegistrationTests {
    /// Reads JSON text the way the API does.
    func body(_ json: String) throws -> JSONValue {
        try JSONParser.parse(json)
    }

    func errors(_ json: String) throws -> [ValidationError] {
        let value = try body(json)
        do {
            _ = try DeviceRegistration.parse(value)
            Issue.record("accepted \(json)")
            return []
        } catch {
            return error.errors
        }
    }

    @Test func parsesAFullAPNsRegistration() throws {
        let registration = try DeviceRegistration.parse(
            body(
                """
                {"user_id": "user_42", "provider": "ios-prod", "type": "voip", "token": "\(Fixtures.voipToken.uppercased())",
                 "environment": "sandbox", "device_id": "6B2D1C2E-3F4A", "platform": "ios", "app_version": "6.2.1",
                 "locale": "en_US"}
                """))
        #expect(registration.userID.value == "user_42")
        #expect(registration.provider.value == "ios-prod")
        #expect(registration.type == .voip)
        #expect(registration.token.value == Fixtures.voipToken)
        #expect(registration.environment == .sandbox)
        #expect(registration.deviceID?.value == "6B2D1C2E-3F4A")
        #expect(registration.platform?.value == "ios")
        #expect(registration.appVersion?.value == "6.2.1")
        #expect(registration.locale?.value == "en_US")
    }

    @Test func apnsEnvironmentDefaultsToProductionAndNullMeansAbsent() throws {
        let registration = try DeviceRegistration.parse(
            body(
                #"{"user_id": "u", "provider": "ios", "type": "apns", "token": "\#(Fixtures.remoteToken)", "environment": null, "locale": null}"#
            ))
        #expect(registration.environment == .production)
        #expect(registration.locale == nil)
    }

    @Test func fcmHasNoEnvironment() throws {
        let registration = try DeviceRegistration.parse(
            body(#"{"user_id": "u", "provider": "android", "type": "fcm", "token": "\#(Fixtures.fcmToken)"}"#))
        #expect(registration.environment == nil)
        #expect(registration.token.type == .fcm)
        let withNull = try DeviceRegistration.parse(
            body(
                #"{"user_id": "u", "provider": "android", "type": "fcm", "token": "\#(Fixtures.fcmToken)", "environment": null}"#
            ))
        #expect(withNull.environment == nil)
        #expect(
            try errors(
                #"{"user_id": "u", "provider": "android", "type": "fcm", "token": "abc", "environment": "production"}"#)
                == [
                    ValidationError(
                        field: "environment",
                        message: "must be omitted for fcm tokens; it only applies to apns and voip")
                ])
    }

    @Test func missingRequiredFieldsAreAllReported() throws {
        #expect(
            try errors("{}")
                == ["user_id", "provider", "type", "token"].map { ValidationError(field: $0, message: "is required") })
    }

    @Test func nullForARequiredFieldIsMissing() throws {
        #expect(
            try errors(#"{"user_id": null, "provider": "p", "type": "fcm", "token": "t"}"#)
                == [ValidationError(field: "user_id", message: "is required")])
    }

    @Test func everyProblemIsReportedAtOnce() throws {
        let found = try errors(
            #"{"user_id": 42, "provider": "iOS", "type": "apns", "token": "{length=32,bytes=0x740f...}", "enviroment": "sandbox", "platform": ""}"#
        )
        #expect(found.map(\.field) == ["user_id", "provider", "token", "platform", "enviroment"])
        #expect(found[0].message == "must be a string, not a number")
        #expect(found[4].message == "unknown field; did you mean \"environment\"?")
    }

    @Test func tokenIsOnlyCheckedOnceTheTypeIsKnown() throws {
        #expect(
            try errors(#"{"user_id": "u", "provider": "p", "type": "gcm", "token": "x"}"#)
                == [ValidationError(field: "type", message: "must be one of: apns, voip, fcm")])
    }

    @Test(arguments: [
        ("userId", "unknown field; did you mean \"user_id\"?"),
        ("Token", "unknown field; did you mean \"token\"?"),
        ("app-version", "unknown field; did you mean \"app_version\"?"),
        ("devcie_id", "unknown field; did you mean \"device_id\"?"),
        (
            "colour",
            "unknown field; expected one of: user_id, provider, type, token, environment, device_id, platform, app_version, locale"
        ),
    ])
    func unknownFieldsSuggestTheClosestName(key: String, message: String) throws {
        let found = try errors(#"{"user_id": "u", "provider": "p", "type": "fcm", "token": "t", "\#(key)": "x"}"#)
        #expect(found == [ValidationError(field: key, message: message)])
    }

    @Test(arguments: [("[]", "an array"), ("\"x\"", "a string"), ("null", "null"), ("true", "a boolean")])
    func bodyMustBeAnObject(json: String, typeName: String) throws {
        let found = try errors(json)
        #expect(
            found.first
                == ValidationError(field: "", message: "the request body must be a JSON object, not \(typeName)"))
    }

    @Test func jsonValueDecodesEveryKind() throws {
        let value = try body(#"{"a": [1, 2.5, true, false, null, "s", {}]}"#)
        #expect(
            value
                == .object([
                    "a": .array([
                        .number(1), .number(2.5), .bool(true), .bool(false), .null, .string("s"), .object([:]),
                    ])
                ]))
        let roundTripped = try JSONParser.parse(String(decoding: JSONEncoder().encode(value), as: UTF8.self))
        #expect(roundTripped == value)
    }

    @Test func programmaticInitAppliesTheSameEnvironmentRule() throws {
        let fcm = try PushToken(type: .fcm, raw: Fixtures.fcmToken)
        #expect(throws: ValidationError.self) {
            try DeviceRegistration(userID: UserID("u"), provider: ProviderName("a"), token: fcm, environment: .sandbox)
        }
        let apns = try PushToken(type: .apns, raw: Fixtures.remoteToken)
        #expect(
            try DeviceRegistration(userID: UserID("u"), provider: ProviderName("a"), token: apns).environment
                == .production)
    }
}
