/// Base64url (RFC 4648 §5) without padding: the encoding for secrets and ids that travel in URLs
/// and headers.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    /// Each byte's value in the alphabet, `invalid` for bytes outside it: a lookup per character
    /// (every request's API key is decoded) without hashing.
    private static let invalid: UInt8 = 0xFF
    private static let values: [UInt8] = {
        var values = [UInt8](repeating: invalid, count: 256)
        for (value, byte) in alphabet.enumerated() { values[Int(byte)] = UInt8(value) }
        return values
    }()

    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        let input = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity((input.count * 4 + 2) / 3)
        var index = 0
        while index < input.count {
            let remaining = input.count - index
            let b0 = input[index]
            let b1 = remaining > 1 ? input[index + 1] : 0
            let b2 = remaining > 2 ? input[index + 2] : 0
            output.append(alphabet[Int(b0 >> 2)])
            output.append(alphabet[Int((b0 & 0x03) << 4 | b1 >> 4)])
            if remaining > 1 { output.append(alphabet[Int((b1 & 0x0F) << 2 | b2 >> 6)]) }
            if remaining > 2 { output.append(alphabet[Int(b2 & 0x3F)]) }
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Strict: nil for padding, whitespace, the standard alphabet's `+`/`/`, an impossible length
    /// (4n+1) or non-zero unused trailing bits — so every byte string has exactly one encoding,
    /// which matters when the encoded text is itself hashed or compared.
    public static func decode(_ text: String) -> [UInt8]? {
        let input = text.utf8
        guard input.count % 4 != 1 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(input.count * 3 / 4)
        var buffer: UInt32 = 0
        var bits = 0
        for character in input {
            let value = values[Int(character)]
            guard value != invalid else { return nil }
            buffer = buffer << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
                buffer &= (1 << UInt32(bits)) - 1
            }
        }
        guard buffer == 0 else { return nil }
        return output
    }
}
