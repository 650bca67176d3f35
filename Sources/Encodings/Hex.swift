/// Lowercase hexadecimal, for digests in logs and database columns, and the one hex-digit reader.
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// Iterated as one contiguous buffer: a caller in another module gets this generic function
    /// unspecialized, and iterating its collection element by element allocated once per byte
    /// (32 allocations for the API key hash that authenticates every request).
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        bytes.withContiguousStorageIfAvailable(encode(buffer:)) ?? Array(bytes).withUnsafeBufferPointer(encode(buffer:))
    }

    private static func encode(buffer: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: buffer.count * 2) { output in
            for (index, byte) in buffer.enumerated() { write(byte, into: output, at: 2 * index) }
            return buffer.count * 2
        }
    }

    /// Writes `byte`'s two digits at `index` and `index + 1` of `output`, for text that mixes hex
    /// with other characters (a UUID's dashes) built in place.
    public static func write(_ byte: UInt8, into output: UnsafeMutableBufferPointer<UInt8>, at index: Int) {
        output[index] = digits[Int(byte >> 4)]
        output[index + 1] = digits[Int(byte & 0x0F)]
    }

    /// Accepts either case; nil for odd length or a non-hex character.
    public static func decode(_ text: String) -> [UInt8]? {
        let input = Array(text.utf8)
        guard input.count % 2 == 0 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(input.count / 2)
        var index = 0
        while index < input.count {
            guard let high = digitValue(input[index]), let low = digitValue(input[index + 1]) else { return nil }
            output.append(high << 4 | low)
            index += 2
        }
        return output
    }

    /// The value of one hex digit of either case (also for `%XX` and JSON `\uXXXX` escapes); nil
    /// for any other byte.
    public static func digitValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
