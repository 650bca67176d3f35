import Foundation
import Testing

@testable import RegistryCore

@Suite struct ProviderTests {
    func parse(_ json: String) throws -> Result<Provider, ValidationErrors> {
        let value = try JSONParser.parse(json)
        do { return .success(try Provider.parse(value)) } catch { return .failure(error) }
    }

    @Test func apnsProviderNeedsABundleIDTopic() throws {
        let provider = try parse(#"{"name": "ios-prod", "service": "apns", "topic": "com.example.app"}"#).get()
        #expect(provider.topic == "com.example.app")
        #expect(provider.accepts(.apns) && provider.accepts(.voip) && !provider.accepts(.fcm))
        #expect(
            try parse(#"{"name": "ios", "service": "apns"}"#)
                == .failure(
                    ValidationErrors([
                        ValidationError(field: "topic", message: "is required for apns providers: the app's bundle id")
                    ])))
    }

    @Test(arguments: ["com.example.app", "com.example.my-app", "A1.b2", "com.example.app.voip"])
    func bundleIDsAccepted(topic: String) {
        #expect(Provider.isBundleID(topic))
    }

    @Test(arguments: [
        "app", "com..example", ".com.example", "com.example.", "com.exa mple", "com.example_app", "com.ex/ample",
        "a." + String(repeating: "b", count: 254),
    ])
    func bundleIDsRejected(topic: String) {
        #expect(!Provider.isBundleID(topic))
    }

    @Test func fcmProviderTakesAProjectOrSenderID() throws {
        #expect(
            try parse(#"{"name": "android", "service": "fcm", "project_id": "my-app-123"}"#).get().projectID
                == "my-app-123")
        #expect(try parse(#"{"name": "android", "service": "fcm", "project_id": "929724111839"}"#).get().accepts(.fcm))
        #expect(try parse(#"{"name": "android", "service": "fcm"}"#).get().projectID == nil)
        #expect(!Provider.isProjectID("My_App"))
    }

    @Test func crossServiceFieldsAndEverythingElseAreReported() throws {
        guard
            case .failure(let failure) = try parse(
                #"{"name": "Bad Name", "service": "fcm", "topic": "com.example.app", "projectid": "x"}"#)
        else {
            Issue.record("accepted")
            return
        }
        #expect(failure.errors.map(\.field) == ["name", "projectid"])
        guard case .failure(let crossed) = try parse(#"{"name": "ok", "service": "fcm", "topic": "com.example.app"}"#)
        else {
            Issue.record("accepted")
            return
        }
        #expect(
            crossed.errors == [
                ValidationError(field: "topic", message: "must be omitted for fcm providers; it only applies to apns")
            ])
        guard
            case .failure(let apns) = try parse(
                #"{"name": "ok", "service": "apns", "topic": "app", "project_id": "p"}"#)
        else {
            Issue.record("accepted")
            return
        }
        #expect(apns.errors.map(\.field) == ["topic", "project_id"])
    }
}
