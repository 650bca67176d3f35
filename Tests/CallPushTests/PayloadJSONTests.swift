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
}
