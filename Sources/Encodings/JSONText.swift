/// JSON strings and numbers written byte for byte as JSONEncoder writes them with `.sortedKeys`
/// and `.withoutEscapingSlashes`: for bodies written on every push, where JSONEncoder (a boxed
/// value per field, keys sorted again for every object) cost more than the push's own sending.
public enum JSONText {
    /// `value` quoted, with `"`, `\` and control characters escaped; `/` and non-ASCII as they are.
    public static func appendString(_ value: String, to output: inout [UInt8]) {
        writeString(value) { output.append(contentsOf: $0) }
    }

    /// `appendString` for any output: the quoted string handed to `emit` in pieces (a ByteBuffer's
    /// `writeBytes`), so every JSON writer here escapes alike.
    public static func writeString(_ value: String, _ emit: (UnsafeRawBufferPointer) -> Void) {
        var value = value
        emitStatic("\"", emit)
        value.withUTF8 { bytes in
            var plainStart = 0
            for index in bytes.indices {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                emit(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[plainStart..<index])))
                switch byte {
                case UInt8(ascii: "\""): emitStatic(#"\""#, emit)
                case UInt8(ascii: "\\"): emitStatic(#"\\"#, emit)
                case 0x0A: emitStatic(#"\n"#, emit)
                case 0x0D: emitStatic(#"\r"#, emit)
                case 0x09: emitStatic(#"\t"#, emit)
                case 0x08: emitStatic(#"\b"#, emit)
                case 0x0C: emitStatic(#"\f"#, emit)
                default:
                    let escaped: [UInt8] =
                        Array(#"\u00"#.utf8) + [hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]]
                    escaped.withUnsafeBytes(emit)
                }
                plainStart = index + 1
            }
            emit(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[plainStart...])))
        }
        emitStatic("\"", emit)
    }

    private static func emitStatic(_ text: StaticString, _ emit: (UnsafeRawBufferPointer) -> Void) {
        emit(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// `value` or `null`.
    public static func appendString(_ value: String?, to output: inout [UInt8]) {
        guard let value else { return output.append(contentsOf: "null".utf8) }
        appendString(value, to: &output)
    }

    /// A finite number as its shortest round-trip text, without a trailing `.0` (so `10`, `0.5`,
    /// `1e+300`).
    public static func appendNumber(_ value: Double, to output: inout [UInt8]) {
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        output.append(contentsOf: text.utf8)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
