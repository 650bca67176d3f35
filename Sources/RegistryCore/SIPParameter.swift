/// One `;name=value` parameter of a SIP URI or header, percent-decoded after splitting so that
/// an escaped `%3B` or `%26` inside a value cannot split it.
struct SIPParameter: Equatable {
    /// Lowercased: SIP parameter names are case-insensitive.
    var name: String
    var value: String?

    /// Splits `a=1;b;c=%3A` (no leading `;`). Empty segments (`;;`) are skipped. Returns nil when
    /// a `%` escape is malformed or decodes to invalid UTF-8.
    static func split(_ text: Substring) -> [SIPParameter]? {
        var parameters: [SIPParameter] = []
        for segment in splitOutsideQuotes(text, separator: ";") where !segment.allSatisfy(\.isWhitespace) {
            let pair = segment.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = percentDecoded(pair[0].trimmingSpaces()) else { return nil }
            var value: String?
            if pair.count == 2 {
                guard let decoded = percentDecoded(pair[1].trimmingSpaces()) else { return nil }
                value = decoded
            }
            parameters.append(SIPParameter(name: name.lowercased(), value: value))
        }
        return parameters
    }

    /// Splits on `separator` except inside double quotes (header parameter values such as
    /// `+sip.instance="<urn:uuid:…>"` are quoted strings).
    static func splitOutsideQuotes(_ text: Substring, separator: Character) -> [Substring] {
        var parts: [Substring] = []
        var start = text.startIndex
        var quoted = false
        var escaped = false
        for index in text.indices {
            let character = text[index]
            if escaped {
                escaped = false
            } else if quoted && character == "\\" {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if character == separator && !quoted {
                parts.append(text[start..<index])
                start = text.index(after: index)
            }
        }
        parts.append(text[start...])
        return parts
    }

    static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        // String(validating:) needs macOS 15; a lossless round trip is the same check.
        let string = String(decoding: bytes, as: UTF8.self)
        return Array(string.utf8) == bytes ? string : nil
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

extension Substring {
    func trimmingSpaces() -> Substring {
        let start = firstIndex { !$0.isWhitespace } ?? endIndex
        let end = lastIndex { !$0.isWhitespace }.map { index(after: $0) } ?? start
        return self[start..<Swift.max(start, end)]
    }
}
