/// Whether `bytes` spell `lowercase` (lowercase ASCII) in any ASCII case: header names and media
/// types compared as bytes, without the lowercased copy of a string.
func equalIgnoringASCIICase(_ bytes: some Collection<UInt8>, lowercase: some Collection<UInt8>) -> Bool {
    bytes.count == lowercase.count
        && bytes.elementsEqual(lowercase) { byte, lower in
            byte == lower || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") && byte | 0x20 == lower)
        }
}
