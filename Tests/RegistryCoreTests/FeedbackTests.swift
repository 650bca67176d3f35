import Testing

@testable import RegistryCore

@Suite struct FeedbackTests {
    @Test(arguments: [
        // APNs, exact names
        ("Unregistered", PushService.apns, FeedbackPolicy.deleteIfNotSeenSince),
        ("ExpiredToken", .apns, .deleteIfNotSeenSince),
        ("BadDeviceToken", .apns, .disable),
        ("DeviceTokenNotForTopic", .apns, .disable),
        ("PayloadTooLarge", .apns, .ignore),
        ("BadTopic", .apns, .ignore),
        ("TooManyRequests", .apns, .ignore),
        ("InternalServerError", .apns, .ignore),
        // FCM v1 and legacy names
        ("UNREGISTERED", .fcm, .deleteIfNotSeenSince),
        ("NotRegistered", .fcm, .deleteIfNotSeenSince),
        ("SENDER_ID_MISMATCH", .fcm, .disable),
        ("MismatchSenderId", .fcm, .disable),
        ("InvalidRegistration", .fcm, .disable),
        ("INVALID_ARGUMENT", .fcm, .ignore),
        ("QUOTA_EXCEEDED", .fcm, .ignore),
        // Lenient on case, separators and whitespace
        ("unregistered", .apns, .deleteIfNotSeenSince),
        ("bad_device_token", .apns, .disable),
        (" BADDEVICETOKEN\n", .apns, .disable),
        ("Unregistered", .fcm, .deleteIfNotSeenSince),
        ("sender-id-mismatch", .fcm, .disable),
        // …but a reason only counts for the service that defines it
        ("BadDeviceToken", .fcm, .ignore),
        ("SENDER_ID_MISMATCH", .apns, .ignore),
        ("ExpiredToken", .fcm, .ignore),
        // Unknown and empty
        ("", .apns, .ignore),
        ("SomethingNew", .fcm, .ignore),
    ])
    func classifies(reason: String, service: PushService, policy: FeedbackPolicy) {
        #expect(FeedbackClassifier.action(for: reason, service: service) == policy)
    }

    @Test func unknownReasonsKeepTheirTrimmedText() {
        #expect(FeedbackReason("  PayloadTooLarge ", service: .apns) == .other("PayloadTooLarge"))
        #expect(FeedbackReason("BadDeviceToken", service: .apns) == .badDeviceToken)
    }

    @Test(arguments: [
        ("270d", Int64(270 * 86_400)), ("36h", 129_600), ("90m", 5_400), ("45s", 45), ("1d12h", 129_600),
        ("1h30m15s", 5_415), ("007s", 7),
    ])
    func durationsParse(raw: String, seconds: Int64) throws {
        let duration = try CompactDuration(raw)
        #expect(duration.seconds == seconds)
        #expect(duration.duration == .seconds(seconds))
    }

    @Test(arguments: [
        "", "270", "d", "0d", "0s", "-1d", "1.5d", "1w", "270D", "1h1d", "1d1d", " 1d", "1d ", "99999999999999999999d",
        "999999999999999d",
    ])
    func durationsReject(raw: String) {
        #expect(
            throws: ValidationError(
                field: "not_seen_for",
                message: "must be a positive duration like 270d, 36h, 90m, 45s or 1d12h (units s, m, h, d)")
        ) { try CompactDuration(raw) }
    }

    @Test func durationDescriptionIsCanonical() throws {
        #expect(try CompactDuration("36h").description == "1d12h")
        #expect(try CompactDuration("270d").description == "270d")
        #expect(CompactDuration(seconds: 61).description == "1m1s")
    }
}
