/// The syntax of one SIP Contact value, split into its URI parameters and header parameters.
///
/// Accepts `"Display Name" <sip:…>`, `Display Name <sip:…>`, `<sip:…>` and a bare `sip:…`
/// (optionally preceded by `Contact:`). Without angle brackets RFC 3261 reads trailing parameters
/// as header parameters, but clients that send a bare URI mean them as URI parameters, so all of
/// them are treated as both.
struct SIPAddress {
    var uriParameters: [SIPParameter]
    var headerParameters: [SIPParameter]

    /// Throws a message (without field) saying what is malformed.
    init(_ contact: String) throws(SIPSyntaxError) {
        var text = Substring(contact).trimmingSpaces()
        if text.lowercased().hasPrefix("contact:") {
            text = text.dropFirst("contact:".count).trimmingSpaces()
        }
        guard !text.isEmpty else {
            throw SIPSyntaxError("is empty; expected a SIP Contact like <sip:alice@example.com;pn-provider=…>")
        }

        let uri: Substring
        var headers: Substring = ""
        if Self.hasSIPScheme(text) {
            uri = text
        } else {
            var rest = text
            if rest.first == "\"" {
                guard let end = Self.endOfQuotedString(rest) else {
                    throw SIPSyntaxError("has a display name whose opening quote is never closed")
                }
                rest = rest[end...].trimmingSpaces()
                guard rest.first == "<" else {
                    throw SIPSyntaxError(
                        "must have the URI in angle brackets after a quoted display name: \"Name\" <sip:…>")
                }
            }
            guard let open = rest.firstIndex(of: "<") else {
                throw SIPSyntaxError("must be a sip: or sips: URI, optionally in angle brackets")
            }
            guard let close = rest[open...].firstIndex(of: ">") else {
                throw SIPSyntaxError("has a '<' that is never closed by '>'")
            }
            uri = rest[rest.index(after: open)..<close].trimmingSpaces()
            headers = rest[rest.index(after: close)...].trimmingSpaces()
            guard Self.hasSIPScheme(uri) else {
                throw SIPSyntaxError("must hold a sip: or sips: URI inside the angle brackets")
            }
        }

        // Everything after the last '@' is host and parameters; the user part may itself hold ';'.
        let withoutHeaders = uri[..<(uri.firstIndex(of: "?") ?? uri.endIndex)]
        let hostStart =
            withoutHeaders.lastIndex(of: "@").map { withoutHeaders.index(after: $0) } ?? withoutHeaders.startIndex
        if let semicolon = withoutHeaders[hostStart...].firstIndex(of: ";") {
            guard let parameters = SIPParameter.split(withoutHeaders[withoutHeaders.index(after: semicolon)...]) else {
                throw SIPSyntaxError(
                    "has a malformed %-escape in a URI parameter; escapes are % followed by two hex digits")
            }
            uriParameters = parameters
        } else {
            uriParameters = []
        }

        if headers.isEmpty {
            headerParameters = Self.hasSIPScheme(text) ? uriParameters : []
            return
        }
        guard headers.first == ";" else {
            throw SIPSyntaxError("has unexpected text after '>'; expected ;name=value parameters")
        }
        guard SIPParameter.splitOutsideQuotes(headers, separator: ",").count == 1 else {
            throw SIPSyntaxError("holds more than one contact; send one Contact per registration")
        }
        guard let parameters = SIPParameter.split(headers.dropFirst()) else {
            throw SIPSyntaxError(
                "has a malformed %-escape in a header parameter; escapes are % followed by two hex digits")
        }
        headerParameters = parameters
    }

    private static func hasSIPScheme(_ text: Substring) -> Bool {
        let lowered = text.prefix(5).lowercased()
        return lowered.hasPrefix("sip:") || lowered.hasPrefix("sips:")
    }

    /// The index just after the closing quote of the quoted string `text` starts with.
    private static func endOfQuotedString(_ text: Substring) -> Substring.Index? {
        var escaped = false
        for index in text.indices.dropFirst() {
            if escaped {
                escaped = false
            } else if text[index] == "\\" {
                escaped = true
            } else if text[index] == "\"" {
                return text.index(after: index)
            }
        }
        return nil
    }
}
