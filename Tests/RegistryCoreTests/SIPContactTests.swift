import Testing

@testable import RegistryCore

/// One contact a SIP client might send, and what it should parse to.
struct SIPCase: Sendable, CustomTestStringConvertible {
    var name: String
    var contact: String
    var expected: PushContact
    var testDescription: String { name }
}

/// One contact that must be refused, and a phrase the `contact` error must contain.
struct SIPFailure: Sendable, CustomTestStringConvertible {
    var name: String
    var contact: String
    var messages: [String]
    var testDescription: String { name }
}

private let R = Fixtures.remoteToken
private let V = Fixtures.voipToken
private let F = Fixtures.fcmToken
private let instance = "urn:uuid:6b2d1c2e-3f4a-4b5c-8d9e-0f1a2b3c4d5e"

private func apns(_ tokens: [(TokenType, String)], _ environment: APNsEnvironment = .production, device: String? = nil)
    -> PushContact
{
    PushContact(
        service: .apns, environment: environment, bundleID: "com.example.app", teamID: "ABCD1234",
        tokens: tokens.map { try! PushToken(type: $0.0, raw: $0.1) }, deviceID: device.map { try! DeviceID($0) })
}

private func fcm(_ project: String?, device: String? = nil) -> PushContact {
    PushContact(
        service: .fcm, projectID: project, tokens: [try! PushToken(type: .fcm, raw: F)],
        deviceID: device.map { try! DeviceID($0) })
}

@Suite struct SIPContactTests {
    static let accepted: [SIPCase] = [
        SIPCase(
            name: "both tokens, quoted display name, header parameters",
            contact:
                #""Alice" <sip:alice@10.0.0.1:5060;transport=tls;pn-provider=apns;pn-prid=\#(R):remote&\#(V):voip;pn-param=ABCD1234.com.example.app.remote&voip>;expires=3600;+sip.instance="<\#(instance)>""#,
            expected: apns([(.apns, R), (.voip, V)], device: instance)),
        SIPCase(
            name: "remote only, bare token, no suffix",
            contact: "<sip:alice@example.com;pn-provider=apns;pn-prid=\(R);pn-param=ABCD1234.com.example.app>",
            expected: apns([(.apns, R)])),
        SIPCase(
            name: "remote only, bare token, .remote suffix",
            contact: "<sip:alice@example.com;pn-provider=apns;pn-prid=\(R);pn-param=ABCD1234.com.example.app.remote>",
            expected: apns([(.apns, R)])),
        SIPCase(
            name: "remote only, labelled",
            contact:
                "<sip:alice@example.com;pn-provider=apns;pn-prid=\(R):remote;pn-param=ABCD1234.com.example.app.remote>",
            expected: apns([(.apns, R)])),
        SIPCase(
            name: "voip only, bare token, .voip suffix",
            contact: "<sip:alice@example.com;pn-provider=apns;pn-prid=\(V);pn-param=ABCD1234.com.example.app.voip>",
            expected: apns([(.voip, V)])),
        SIPCase(
            name: "voip only, labelled, no suffix",
            contact: "<sip:alice@example.com;pn-provider=apns;pn-prid=\(V):voip;pn-param=ABCD1234.com.example.app>",
            expected: apns([(.voip, V)])),
        SIPCase(
            name: "apns.dev is the sandbox",
            contact:
                "<sip:alice@example.com;pn-provider=apns.dev;pn-prid=\(R):remote&\(V):voip;pn-param=ABCD1234.com.example.app.remote&voip>",
            expected: apns([(.apns, R), (.voip, V)], .sandbox)),
        SIPCase(
            name: "fcm, bare URI without brackets",
            contact: "sip:bob@host;pn-provider=fcm;pn-prid=\(F);pn-param=my-project-123",
            expected: fcm("my-project-123")),
        SIPCase(
            name: "fcm with a numeric sender id",
            contact: "<sip:bob@sip.example.org;transport=tcp;pn-provider=fcm;pn-param=929724111839;pn-prid=\(F)>",
            expected: fcm("929724111839")),
        SIPCase(
            name: "fcm without pn-param",
            contact: "<sip:bob@sip.example.org;pn-provider=fcm;pn-prid=\(F)>",
            expected: fcm(nil)),
        SIPCase(
            name: "parameters and tokens in any order",
            contact:
                "<sip:alice@example.com;pn-param=ABCD1234.com.example.app.remote&voip;pn-prid=\(V):voip&\(R):remote;transport=tcp;pn-provider=apns>",
            expected: apns([(.apns, R), (.voip, V)])),
        SIPCase(
            name: "suffix words in either order (.voip&remote)",
            contact:
                "<sip:alice@example.com;pn-provider=apns;pn-prid=\(R):remote&\(V):voip;pn-param=ABCD1234.com.example.app.voip&remote>",
            expected: apns([(.apns, R), (.voip, V)])),
        SIPCase(
            name: "URI-escaped ':' and '&'",
            contact:
                "<sip:alice@example.com;pn-provider=apns;pn-prid=\(R)%3Aremote%26\(V)%3avoip;pn-param=ABCD1234.com.example.app.remote%26voip>",
            expected: apns([(.apns, R), (.voip, V)])),
        SIPCase(
            name: "bare display name, sips, uppercase provider",
            contact:
                "Alice Smith <sips:alice@example.com;pn-provider=APNS.dev;pn-prid=\(R);pn-param=ABCD1234.com.example.app>",
            expected: apns([(.apns, R)], .sandbox)),
        SIPCase(
            name: "Contact: header name and uppercase parameter names",
            contact:
                "Contact: <sip:alice@example.com;PN-Provider=apns;PN-PRID=\(R.uppercased());Pn-Param=ABCD1234.com.example.app>",
            expected: apns([(.apns, R)])),
        SIPCase(
            name: "user part with its own ';' parameters",
            contact: "<sip:+15551234;phone-context=example.com@example.com;pn-provider=fcm;pn-prid=\(F)>",
            expected: fcm(nil)),
        SIPCase(
            name: "bare URI with +sip.instance",
            contact: #"sip:bob@host;pn-provider=fcm;pn-prid=\#(F);expires=600;+sip.instance="<\#(instance)>""#,
            expected: fcm(nil, device: instance)),
        SIPCase(
            name: "display name with quotes, brackets and semicolons",
            contact:
                #""Weird <name>; \"x\"" <sip:alice@example.com;pn-provider=fcm;pn-prid=\#(F)>;+sip.instance="<\#(instance)>""#,
            expected: fcm(nil, device: instance)),
        SIPCase(
            name: "URI headers after '?' are not parameters",
            contact: "<sip:alice@example.com;pn-provider=fcm;pn-prid=\(F)?X-Note=pn-provider%3Dapns>",
            expected: fcm(nil)),
        SIPCase(
            name: "an unusable +sip.instance is ignored",
            contact:
                #"<sip:alice@example.com;pn-provider=fcm;pn-prid=\#(F)>;+sip.instance="<\#(String(repeating: "x", count: 200))>""#,
            expected: fcm(nil)),
    ]

    @Test(arguments: accepted)
    func parses(_ example: SIPCase) throws {
        #expect(try SIPContact.parse(example.contact) == example.expected)
    }

    static let refused: [SIPFailure] = [
        SIPFailure(name: "empty", contact: "  ", messages: ["is empty"]),
        SIPFailure(
            name: "no push parameters", contact: "<sip:alice@example.com;transport=tls>;expires=3600",
            messages: ["has no push parameters; expected pn-provider, pn-prid and pn-param"]),
        SIPFailure(
            name: "pn-* outside the brackets",
            contact: "<sip:alice@example.com>;pn-provider=fcm;pn-prid=\(F)",
            messages: ["after the '>'"]),
        SIPFailure(
            name: "legacy Linphone parameters",
            contact: "<sip:alice@example.com;pn-type=firebase;pn-tok=\(F);app-id=929724111839>",
            messages: ["legacy pn-type/pn-tok/app-id"]),
        SIPFailure(
            name: "pn-prid without pn-provider", contact: "<sip:alice@example.com;pn-prid=\(F)>",
            messages: ["pn-provider is required"]),
        SIPFailure(
            name: "unknown pn-provider", contact: "<sip:alice@example.com;pn-provider=huawei;pn-prid=abc>",
            messages: [#"pn-provider "huawei" is not supported; expected apns, apns.dev or fcm"#]),
        SIPFailure(
            name: "pn-prid missing",
            contact: "<sip:alice@example.com;pn-provider=apns;pn-param=ABCD1234.com.example.app>",
            messages: ["pn-prid is required"]),
        SIPFailure(
            name: "pn-prid empty", contact: "<sip:alice@example.com;pn-provider=fcm;pn-prid=>",
            messages: ["pn-prid is required"]),
        SIPFailure(
            name: "pn-param missing for apns", contact: "<sip:alice@example.com;pn-provider=apns;pn-prid=\(R)>",
            messages: ["pn-param is required for apns"]),
        SIPFailure(
            name: "pn-param without a bundle id",
            contact: "<sip:alice@example.com;pn-provider=apns;pn-prid=\(R);pn-param=com.voip>",
            messages: [#"pn-param "com.voip" must be <TeamID>.<BundleID>"#]),
        SIPFailure(
            name: "pn-param with an unknown suffix",
            contact:
                "<sip:alice@example.com;pn-provider=apns;pn-prid=\(R);pn-param=ABCD1234.com.example.app.remote&alert>",
            messages: ["must be <TeamID>.<BundleID>"]),
        SIPFailure(
            name: "three tokens",
            contact:
                "<sip:alice@example.com;pn-provider=apns;pn-prid=\(R):remote&\(V):voip&\(V):voip;pn-param=ABCD1234.com.example.app>",
            messages: ["pn-prid has 3 tokens"]),
        SIPFailure(
            name: "unknown token label",
            contact: "<sip:alice@example.com;pn-provider=apns;pn-prid=\(R):alert;pn-param=ABCD1234.com.example.app>",
            messages: [#"unknown token label ":alert""#]),
        SIPFailure(
            name: "two unlabelled tokens",
            contact:
                "<sip:alice@example.com;pn-provider=apns;pn-prid=\(R)&\(V);pn-param=ABCD1234.com.example.app.remote&voip>",
            messages: ["must label each of two tokens"]),
        SIPFailure(
            name: "two voip tokens",
            contact:
                "<sip:alice@example.com;pn-provider=apns;pn-prid=\(R):voip&\(V):voip;pn-param=ABCD1234.com.example.app>",
            messages: ["two :voip tokens"]),
        SIPFailure(
            name: ".remote&voip but one bare token",
            contact:
                "<sip:alice@example.com;pn-provider=apns;pn-prid=\(R);pn-param=ABCD1234.com.example.app.remote&voip>",
            messages: ["pn-param asks for remote and voip tokens (.remote&voip) but pn-prid has only one"]),
        SIPFailure(
            name: ".remote&voip but only a voip token",
            contact:
                "<sip:alice@example.com;pn-provider=apns;pn-prid=\(V):voip;pn-param=ABCD1234.com.example.app.remote&voip>",
            messages: ["pn-prid has a voip token only but pn-param asks for remote and voip tokens"]),
        SIPFailure(
            name: ".voip suffix but a remote token",
            contact:
                "<sip:alice@example.com;pn-provider=apns;pn-prid=\(R):remote;pn-param=ABCD1234.com.example.app.voip>",
            messages: ["pn-prid has a remote token only but pn-param asks for a voip token only"]),
        SIPFailure(
            name: "token not hex",
            contact: "<sip:alice@example.com;pn-provider=apns;pn-prid=not-a-token;pn-param=ABCD1234.com.example.app>",
            messages: ["pn-prid: the remote token must be 32–1024 hexadecimal characters with an even length"]),
        SIPFailure(
            name: "voip token too short",
            contact:
                "<sip:alice@example.com;pn-provider=apns;pn-prid=\(R):remote&abcd:voip;pn-param=ABCD1234.com.example.app.remote&voip>",
            messages: ["pn-prid: the PushKit (voip) token must be 32–1024 hexadecimal"]),
        SIPFailure(
            name: "NSData description as token",
            contact:
                "<sip:alice@example.com;pn-provider=apns;pn-prid={length=32,bytes=0x740f4707...};pn-param=ABCD1234.com.example.app>",
            messages: ["NSData.description"]),
        SIPFailure(
            name: "bad FCM token", contact: "<sip:bob@host;pn-provider=fcm;pn-prid=abc/def>",
            messages: ["pn-prid: the FCM token must be 1–4096 characters"]),
        SIPFailure(
            name: "bad FCM project", contact: "<sip:bob@host;pn-provider=fcm;pn-prid=\(F);pn-param=My_Project>",
            messages: [#"pn-param "My_Project" must be a Firebase project id or numeric sender id"#]),
        SIPFailure(
            name: "several problems at once",
            contact: "<sip:alice@example.com;pn-provider=apns;pn-prid=zz;pn-param=nope>",
            messages: [#"pn-param "nope" must be"#, "pn-prid: the remote token must be"]),
        SIPFailure(
            name: "duplicate pn-provider",
            contact: "<sip:alice@example.com;pn-provider=fcm;pn-provider=apns;pn-prid=\(F)>",
            messages: ["pn-provider appears more than once"]),
        SIPFailure(
            name: "malformed %-escape", contact: "<sip:alice@example.com;pn-provider=fcm;pn-prid=abc%ZZ>",
            messages: ["malformed %-escape in a URI parameter"]),
        SIPFailure(name: "not a SIP URI", contact: "<tel:+15551234;pn-provider=fcm>", messages: ["sip: or sips: URI"]),
        SIPFailure(name: "no URI at all", contact: "Alice", messages: ["must be a sip: or sips: URI"]),
        SIPFailure(
            name: "unclosed display name quote", contact: #""Alice <sip:alice@example.com;pn-provider=fcm>"#,
            messages: ["opening quote is never closed"]),
        SIPFailure(
            name: "quoted display name without brackets", contact: #""Alice" sip:alice@example.com;pn-provider=fcm"#,
            messages: ["must have the URI in angle brackets"]),
        SIPFailure(
            name: "unclosed angle bracket", contact: "<sip:alice@example.com;pn-provider=fcm;pn-prid=\(F)",
            messages: ["never closed by '>'"]),
        SIPFailure(
            name: "two contacts",
            contact: "<sip:alice@a.example;pn-provider=fcm;pn-prid=\(F)>;expires=60, <sip:alice@b.example>",
            messages: ["more than one contact"]),
        SIPFailure(
            name: "junk after the bracket", contact: "<sip:alice@example.com;pn-provider=fcm;pn-prid=\(F)> junk",
            messages: ["unexpected text after '>'"]),
        SIPFailure(
            name: "control character", contact: "<sip:alice@example.com;pn-provider=fcm;pn-prid=\(F)>\r\nVia: x",
            messages: ["must not contain control characters"]),
        SIPFailure(
            name: "tab inside", contact: "<sip:alice@example.com;\tpn-provider=fcm;pn-prid=\(F)>",
            messages: ["must not contain control characters"]),
        SIPFailure(
            name: "longer than the contract allows",
            contact: "<sip:alice@example.com;pn-provider=fcm;pn-prid=\(F);x=\(String(repeating: "a", count: 16384))>",
            messages: ["must be at most 16384 characters long"]),
    ]

    @Test(arguments: refused)
    func refuses(_ example: SIPFailure) {
        do {
            let parsed = try SIPContact.parse(example.contact)
            Issue.record("accepted as \(parsed)")
        } catch {
            #expect(error.errors.allSatisfy { $0.field == "contact" })
            #expect(error.errors.count == example.messages.count, "\(error.errors)")
            for (error, phrase) in zip(error.errors, example.messages) {
                #expect(error.message.contains(phrase), "\(error.message)")
            }
        }
    }

    @Test func contactPicksItsProvider() throws {
        let ios = try Provider(name: ProviderName("ios"), service: .apns, topic: "com.example.app")
        let other = try Provider(name: ProviderName("other"), service: .apns, topic: "com.example.other")
        let android = try Provider(name: ProviderName("android"), service: .fcm, projectID: "my-project-123")
        let apnsContact = apns([(.apns, R)])
        #expect(apnsContact.matches(ios) && !apnsContact.matches(other) && !apnsContact.matches(android))
        #expect(fcm("my-project-123").matches(android) && !fcm("another").matches(android) && fcm(nil).matches(android))
        #expect(!fcm(nil).matches(ios))
    }
}
