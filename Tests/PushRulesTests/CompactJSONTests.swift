import Foundation
import PushRules
import RegistryCore
import Testing

/// Every push body is `PushRequest.compactJSON`: what JSONEncoder writes with sorted keys and
/// unescaped slashes, so the encoder's own output is the expected text.
@Suite struct CompactJSONTests {
    static func encoded(_ value: JSONValue) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }

    @Test(arguments: [
        #"{"aps":{},"call_id":"bench"}"#,
        #"{"b":1,"a":"/","B":[true,false,null,0.5,-3,1e300,[],{}],"é":{"z":{"y":"\"\\\n\u0001"}},"aa":"🎉","":2}"#,
        #"[1,"two",{"c":null,"a":[{"k":1.25}]}]"#, #""text""#, "12", "null",
    ])
    func writesWhatJSONEncoderWrites(_ text: String) throws {
        let value = try JSONParser.parse(text)
        #expect(PushRequest.compactJSON(value) == (try Self.encoded(value)))
    }

    /// JSONEncoder refuses them, and the body was empty then too.
    @Test func numberJSONCannotHoldGivesNothing() {
        #expect(PushRequest.compactJSON(.object(["a": .array([.number(.infinity)])])).isEmpty)
        #expect(PushRequest.compactJSON(.number(.nan)).isEmpty)
    }
}
