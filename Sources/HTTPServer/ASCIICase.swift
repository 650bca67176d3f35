/// Whether two byte strings are equal with ASCII letters compared in any case: header names and
/// media types compared as bytes, without lowercased copies of strings (and the API's auth scheme).
package func equalIgnoringASCIICase(_ first: some Collection<UInt8>, _ second: some Collection<UInt8>) -> Bool {
    first.count == second.count && first.elementsEqual(second) { asciiLowercase($0) == asciiLowercase($1) }
}

private func asciiLowercase(_ byte: UInt8) -> UInt8 {
    byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
}
