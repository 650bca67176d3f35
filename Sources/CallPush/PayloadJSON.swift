import Encodings
import RegistryCore

/// JSON whose objects keep the order they were built in, written to bytes exactly so: payloads
/// list their keys as the seed documents print them, and the same event always gives the same
/// bytes (golden tests, digests).
public indirect enum PayloadJSON: Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([PayloadJSON])
    case object([Member])

    public struct Member: Sendable, Hashable {
        public let key: String
        public let value: PayloadJSON

        public init(_ key: String, _ value: PayloadJSON) {
            self.key = key
            self.value = value
        }
    }

    /// A parsed value with its object keys sorted: JSON objects are unordered, so sorting is what
    /// makes two equal inputs write equal bytes.
    public init(sorting value: JSONValue) {
        switch value {
        case .null: self = .null
        case .bool(let flag): self = .bool(flag)
        case .number(let number): self = .number(number)
        case .string(let text): self = .string(text)
        case .array(let elements): self = .array(elements.map(PayloadJSON.init(sorting:)))
        case .object(let members):
            self = .object(members.keys.sorted().map { Member($0, PayloadJSON(sorting: members[$0]!)) })
        }
    }

    /// The same value as parsed JSON, its object keys' order forgotten: what FCM's message model
    /// (`FCMMessage`) holds.
    public var jsonValue: JSONValue {
        switch self {
        case .null: .null
        case .bool(let flag): .bool(flag)
        case .integer(let number): .number(Double(number))
        case .number(let number): .number(number)
        case .string(let text): .string(text)
        case .array(let elements): .array(elements.map(\.jsonValue))
        case .object(let members): .object(Dictionary(members.map { ($0.key, $0.value.jsonValue) }) { _, last in last })
        }
    }

    /// Compact JSON text (no spaces), UTF-8, `/` and non-ASCII left as they are.
    public var bytes: [UInt8] {
        var output: [UInt8] = []
        write(into: &output)
        return output
    }

    public var text: String { String(decoding: bytes, as: UTF8.self) }

    private func write(into output: inout [UInt8]) {
        switch self {
        case .null: output += Array("null".utf8)
        case .bool(let flag): output += Array((flag ? "true" : "false").utf8)
        case .integer(let number): output += Array(String(number).utf8)
        case .number(let number): output += Array(Self.format(number).utf8)
        case .string(let text): JSONText.appendString(text, to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                element.write(into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                JSONText.appendString(member.key, to: &output)
                output.append(UInt8(ascii: ":"))
                member.value.write(into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// Whole numbers as integers (`1`, not `1.0`), as a client's JSON library would read them back.
    private static func format(_ number: Double) -> String {
        if number == number.rounded(), abs(number) < 9_007_199_254_740_992 { return String(Int64(number)) }
        return "\(number)"
    }
}

/// Literals keep their written order, so a payload reads like the seed document that defines it.
extension PayloadJSON: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(dictionaryLiteral elements: (String, PayloadJSON)...) {
        self = .object(elements.map { Member($0.0, $0.1) })
    }
    public init(arrayLiteral elements: PayloadJSON...) { self = .array(elements) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
}
