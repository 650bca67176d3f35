import Encodings

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
            guard let name = PercentDecoding.decode(pair[0].trimmingSpaces(), plusIsSpace: false) else { return nil }
            var value: String?
            if pair.count == 2 {
                guard let decoded = PercentDecoding.decode(pair[1].trimmingSpaces(), plusIsSpace: false) else {
                    return nil
                }
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
}

extension Substring {
    func trimmingSpaces() -> Substring {
        let start = firstIndex { !$0.isWhitespace } ?? endIndex
        let end = lastIndex { !$0.isWhitespace }.map { index(after: $0) } ?? start
        return self[start..<Swift.max(start, end)]
    }
}
