/// Percent-decoding (RFC 3986 §2.1), for URL path segments and query components and for SIP URI
/// parameters alike.
public enum PercentDecoding {
    /// Decodes `%XX` escapes and, when `plusIsSpace` (query strings, per the HTML form encoding), `+`.
    ///
    /// Returns nil when a `%` is not followed by two hex digits or the decoded bytes are not UTF-8,
    /// so callers can refuse the input instead of guessing what the client meant.
    public static func decode(_ input: Substring, plusIsSpace: Bool) -> String? {
        let utf8 = input.utf8
        // Fast path: nothing to decode.
        if !utf8.contains(UInt8(ascii: "%")) && !(plusIsSpace && utf8.contains(UInt8(ascii: "+"))) {
            return String(input)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            switch byte {
            case UInt8(ascii: "%"):
                let first = utf8.index(after: index)
                guard first != utf8.endIndex else { return nil }
                let second = utf8.index(after: first)
                guard second != utf8.endIndex,
                    let high = Hex.digitValue(utf8[first]), let low = Hex.digitValue(utf8[second])
                else { return nil }
                bytes.append(high << 4 | low)
                index = utf8.index(after: second)
                continue
            case UInt8(ascii: "+") where plusIsSpace:
                bytes.append(UInt8(ascii: " "))
            default:
                bytes.append(byte)
            }
            index = utf8.index(after: index)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
