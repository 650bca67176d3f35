import Encodings
import Foundation
import Testing

/// `JSONText` writes what JSONEncoder writes with the server's settings (`.sortedKeys`,
/// `.withoutEscapingSlashes`): the encoder's own output is the expected text.
@Suite struct JSONTextTests {
    static func encoded<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    @Test(arguments: [
        "", "plain", #"quote " back \ slash /"#, "é 🎉 \u{7F} \u{2028}", "tab\tnew\nreturn\rback\u{8}feed\u{C}",
        String((0..<0x20).map { Character(Unicode.Scalar(UInt8($0))) }),
    ])
    func stringsAsJSONEncoderWritesThem(_ text: String) throws {
        var output: [UInt8] = []
        JSONText.appendString(text, to: &output)
        #expect(String(decoding: output, as: UTF8.self) == (try Self.encoded(text)))
    }

    @Test func absentStringIsNull() {
        var output: [UInt8] = []
        JSONText.appendString(nil as String?, to: &output)
        #expect(output == Array("null".utf8))
    }

    @Test(arguments: [
        0, -0.0, 1, -1, 10, 0.5, 0.1, 1.5e-7, 123_456_789, 9_007_199_254_740_993, 1e21, 1e300, -2.5e-300,
        Double.greatestFiniteMagnitude, Double.leastNonzeroMagnitude,
    ])
    func numbersAsJSONEncoderWritesThem(_ number: Double) throws {
        var output: [UInt8] = []
        JSONText.appendNumber(number, to: &output)
        #expect(String(decoding: output, as: UTF8.self) == (try Self.encoded(number)))
    }
}
