import Encodings

/// Strict RFC 8259 JSON text to a `JSONValue`. Every request body goes through here; decoding
/// through `JSONDecoder` into the `JSONValue` enum (a failed `try?` per type tried, per value) cost
/// more CPU than the rest of a registration's handling together.
///
/// Refuses what JSONDecoder refuses: trailing content, unescaped control characters, lone
/// surrogates, invalid UTF-8, numbers out of `Double`'s range, nesting deeper than 512. A name
/// given twice keeps its last value.
public struct JSONParser: ~Copyable {
    public struct SyntaxError: Error, Equatable {
        /// Byte offset where the text stopped being JSON.
        public let offset: Int
    }

    static let maxDepth = 512

    private let bytes: UnsafeRawBufferPointer
    private var index = 0
    private var depth = 0

    private init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(SyntaxError) -> JSONValue {
        var parser = JSONParser(bytes)
        parser.skipWhitespace()
        let value = try parser.value()
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.error() }
        return value
    }

    public static func parse(_ text: String) throws(SyntaxError) -> JSONValue {
        var text = text
        let result = text.withUTF8 { utf8 in
            Result { () throws(SyntaxError) in try parse(UnsafeRawBufferPointer(utf8)) }
        }
        return try result.get()
    }

    private func error() -> SyntaxError { SyntaxError(offset: index) }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private mutating func expect(_ literal: StaticString, _ value: JSONValue) throws(SyntaxError) -> JSONValue {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw error() }
        for offset in 0..<count where bytes[index + offset] != literal.utf8Start[offset] {
            index += offset
            throw error()
        }
        index += count
        return value
    }

    private mutating func value() throws(SyntaxError) -> JSONValue {
        guard let byte = current else { throw error() }
        switch byte {
        case UInt8(ascii: "{"): return try nested { parser throws(SyntaxError) in try parser.object() }
        case UInt8(ascii: "["): return try nested { parser throws(SyntaxError) in try parser.array() }
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try expect("true", .bool(true))
        case UInt8(ascii: "f"): return try expect("false", .bool(false))
        case UInt8(ascii: "n"): return try expect("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw error()
        }
    }

    private mutating func nested(
        _ body: (inout JSONParser) throws(SyntaxError) -> JSONValue
    ) throws(SyntaxError) -> JSONValue {
        depth += 1
        guard depth <= Self.maxDepth else { throw error() }
        defer { depth -= 1 }
        return try body(&self)
    }

    private mutating func object() throws(SyntaxError) -> JSONValue {
        index += 1  // {
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        // Room for a registration's fields at once: growing from empty reallocated at the 2nd,
        // 4th and 7th member.
        members.reserveCapacity(8)
        while true {
            guard current == UInt8(ascii: "\"") else { throw error() }
            let name = try string()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw error() }
            index += 1
            skipWhitespace()
            members[name] = try value()
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
            case UInt8(ascii: "}"):
                index += 1
                return .object(members)
            default:
                throw error()
            }
        }
    }

    private mutating func array() throws(SyntaxError) -> JSONValue {
        index += 1  // [
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            elements.append(try value())
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
            case UInt8(ascii: "]"):
                index += 1
                return .array(elements)
            default:
                throw error()
            }
        }
    }

    /// A string starting at its opening quote. Runs without escapes are copied as they are.
    private mutating func string() throws(SyntaxError) -> String {
        index += 1  // "
        var decoded: [UInt8] = []
        var runStart = index
        while true {
            guard let byte = current else { throw error() }
            switch byte {
            case UInt8(ascii: "\""):
                let text: String?
                if decoded.isEmpty {
                    text = Self.text(UnsafeRawBufferPointer(rebasing: bytes[runStart..<index]))
                } else {
                    decoded.append(contentsOf: bytes[runStart..<index])
                    text = String(validating: decoded, as: UTF8.self)
                }
                guard let text else { throw error() }
                index += 1
                return text
            case UInt8(ascii: "\\"):
                decoded.append(contentsOf: bytes[runStart..<index])
                index += 1
                try escape(into: &decoded)
                runStart = index
            case ..<0x20:
                throw error()
            default:
                index += 1
            }
        }
    }

    /// The string of `utf8`, nil when it is not UTF-8. ASCII (nearly every field) is taken as it
    /// is: `String(validating:as:)` runs unspecialized here and looks up generic metadata each call.
    private static func text(_ utf8: UnsafeRawBufferPointer) -> String? {
        if !utf8.contains(where: { $0 >= 0x80 }) { return String(decoding: utf8, as: UTF8.self) }
        return String(validating: utf8, as: UTF8.self)
    }

    private mutating func escape(into decoded: inout [UInt8]) throws(SyntaxError) {
        guard let byte = current else { throw error() }
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(byte)
        case UInt8(ascii: "b"): decoded.append(0x08)
        case UInt8(ascii: "f"): decoded.append(0x0C)
        case UInt8(ascii: "n"): decoded.append(0x0A)
        case UInt8(ascii: "r"): decoded.append(0x0D)
        case UInt8(ascii: "t"): decoded.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hex4()
            if (0xD800...0xDBFF).contains(scalar) {
                guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u")
                else { throw error() }
                index += 2
                let low = try hex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw error() }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw error() }  // a lone low surrogate
            decoded.append(contentsOf: UTF8.encode(unicode)!)
        default:
            index -= 1
            throw error()
        }
    }

    private mutating func hex4() throws(SyntaxError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error() }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = Hex.digitValue(bytes[index]) else { throw error() }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, then `Double`'s own conversion.
    private mutating func number() throws(SyntaxError) -> Double {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        if current == UInt8(ascii: "0") {
            index += 1
        } else {
            guard digits() > 0 else { throw error() }
        }
        if current == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw error() }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw error() }
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            index = start
            throw error()
        }
        return value
    }

    private mutating func digits() -> Int {
        let start = index
        while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { index += 1 }
        return index - start
    }
}
