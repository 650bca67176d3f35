/// Percent-decoding (RFC 3986 §2.1) for path segments and query components.
enum PercentDecoding {
    /// Decodes `%XX` escapes and, when `plusIsSpace` (query strings, per the HTML form encoding), `+`.
    ///
    /// Returns nil when a `%` is not followed by two hex digits or the decoded bytes are not UTF-8,
    /// so callers can answer 400 instead of guessing what the client meant.
    static func decode(_ input: Substring, plusIsSpace: Bool) -> String? {
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
                    let high = hexValue(utf8[first]), let low = hexValue(utf8[second])
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

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
