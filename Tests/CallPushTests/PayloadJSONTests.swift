import RegistryCore
import Testing

@testable import CallPush

@Suite struct PayloadJSONTests {
    @Test func objectsKeepTheirBuiltOrder() {
        let json: PayloadJSON = ["z": 1, "a": true, "m": ["x", PayloadJSON.null], "e": [:]]
        #expect(json.text == #"{"z":1,"a":true,"m":["x",null],"e":{}}"#)
    }

    @Test func stringsAreEscapedAsJSONRequires() throws {
        let json = PayloadJSON.string("quote\" backslash\\ newline\n tab\t bell\u{07} slash/ é 📞")
        #expect(json.text == #""quote\" backslash\\ newline\n tab\t bell\u0007 slash/ é 📞""#)
        #expect(try JSONParser.parse(json.text) == .string("quote\" backslash\\ newline\n tab\t bell\u{07} slash/ é 📞"))
    }

    @Test func parsedValuesAreWrittenWithSortedKeysAndPlainNumbers() throws {
        let value = try JSONParser.parse(#"{"b":[1.0,2.5,-3,1e3],"a":{"d":null,"c":"x"}}"#)
        #expect(PayloadJSON(sorting: value).text == #"{"a":{"c":"x","d":null},"b":[1,2.5,-3,1000]}"#)
    }

    @Test func fcmMessagesCarryTheAndroidBlockAndStringData() {
        let content = FCMContent(data: [.init("type", "call.ring"), .init("n", "1")])
        let plan = FCMPushPlan(priority: "high", ttlMilliseconds: 28_000)
        #expect(
            content.message(token: "tok", plan: plan).text
                == #"{"message":{"token":"tok","android":{"priority":"high","ttl":"28s"},"data":{"type":"call.ring","n":"1"}}}"#
        )
        let signalWire = FCMContent(data: [], notificationBody: #"{"a":"b"}"#)
        #expect(
            signalWire.message(token: "tok", plan: plan).text
                == #"{"message":{"token":"tok","android":{"priority":"high","ttl":"28s"},"notification":{"body":"{\"a\":\"b\"}"},"data":{}}}"#
        )
    }
}
