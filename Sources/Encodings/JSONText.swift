/// JSON strings and numbers written byte for byte as JSONEncoder writes them with `.sortedKeys`
/// and `.withoutEscapingSlashes`: for bodies written on every push, where JSONEncoder (a boxed
/// value per field, keys sorted again for every object) cost more than the push's own sending.
public enum JSONText {
    /// `value` quoted, with `"`, `\` and control characters escaped; `/` and non-ASCII as they are.
    public static func appendString(_ value: String, to output: inout [UInt8]) {
        var value = value
        output.append(UInt8(ascii: "\""))
        value.withUTF8 { bytes in
            var plainStart = 0
            for index in bytes.indices {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                output.append(contentsOf: bytes[plainStart..<index])
                output.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): output.append(byte)
                case 0x0A: output.append(UInt8(ascii: "n"))
                case 0x0D: output.append(UInt8(ascii: "r"))
                case 0x09: output.append(UInt8(ascii: "t"))
                case 0x08: output.append(UInt8(ascii: "b"))
                case 0x0C: output.append(UInt8(ascii: "f"))
                default:
                    output.append(contentsOf: "u00".utf8)
                    output.append(hexDigits[Int(byte >> 4)])
                    output.append(hexDigits[Int(byte & 0x0F)])
                }
                plainStart = index + 1
            }
            output.append(contentsOf: bytes[plainStart...])
        }
        output.append(UInt8(ascii: "\""))
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
