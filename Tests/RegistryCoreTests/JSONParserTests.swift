import Foundation
import Testing

@testable import RegistryCore

@Suite struct JSONParserTests {
    @Test func readsEveryKindWithWhitespaceAround() throws {
        let value = try JSONParser.parse(" {\"a\" :\t[1, -2.5e3, 0, true, false, null, \"s\", {}, []]}\r\n")
        #expect(
            value
                == .object([
                    "a": .array([
                        .number(1), .number(-2500), .number(0), .bool(true), .bool(false), .null, .string("s"),
                        .object([:]), .array([]),
                    ])
                ]))
        #expect(try JSONParser.parse("42") == .number(42))
    }

    @Test func decodesEscapesAndSurrogatePairs() throws {
        let value = try JSONParser.parse(#""a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00é""#)
        #expect(value == .string("a\"b\\c/d\u{08}\u{0C}\n\r\té😀é"))
    }

    @Test func aRepeatedNameKeepsItsLastValue() throws {
        #expect(try JSONParser.parse(#"{"a": 1, "a": 2}"#) == .object(["a": .number(2)]))
    }

    @Test(arguments: [
        "", " ", "{", "}", "[1,]", "{\"a\":1,}", "{a:1}", "{\"a\" 1}", "[1 2]", "01", "-", "1.", ".5", "1e", "+1",
        "1e999", "tru", "nul", "NaN", "\"abc", "\"\\x\"", "\"\\u12\"", "\"\\ud800\"", "\"\\udc00\"",
        "\"\\ud800\\u0041\"", "\"a\u{01}b\"", "{} {}", "[1] x", "'a'",
    ])
    func refusesWhatIsNotJSON(text: String) {
        #expect(throws: JSONParser.SyntaxError.self) { try JSONParser.parse(text) }
    }

    @Test func refusesInvalidUTF8AndSaysWhere() throws {
        let bytes: [UInt8] = [0x22, 0x61, 0xFF, 0x22]
        #expect(throws: JSONParser.SyntaxError.self) {
            try bytes.withUnsafeBytes { try JSONParser.parse($0) }
        }
        #expect(throws: JSONParser.SyntaxError(offset: 5)) { try JSONParser.parse(#"{"a":x}"#) }
    }

    @Test func limitsNesting() throws {
        let deepest = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(throws: Never.self) { try JSONParser.parse(deepest) }
        let tooDeep = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
        #expect(throws: JSONParser.SyntaxError.self) { try JSONParser.parse(tooDeep) }
    }

    @Test func agreesWithJSONDecoderOnNumbers() throws {
        for text in ["0.1", "-0", "1e-7", "123456789012345678901234567890", "2.2250738585072014e-308", "1E+2"] {
            let expected = try JSONDecoder().decode(Double.self, from: Data(text.utf8))
            #expect(try JSONParser.parse(text) == .number(expected), "\(text)")
        }
    }
}
