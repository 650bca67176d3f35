/// What a route accepts as a request body; decides the 415 check and buffering.
public enum RouteBody: Sendable {
    /// No body expected; one that arrives anyway is read (within the limit) and handed over.
    case none
    /// `application/json` or `application/*+json` (parameters such as charset allowed).
    case json
    /// Delivered through ``HTTPRequest/bodyStream`` as it arrives; `contentTypes` lists the
    /// accepted media types (empty accepts any).
    case streamed(contentTypes: [String])
    /// `.json` for a JSON body, `.streamed` for one of `streamedTypes`: an operation that takes a
    /// small body whole and a large one (NDJSON) as it arrives. The route's `bodyLimit` is the
    /// JSON body's; a streamed one has none.
    case jsonOrStreamed(streamedTypes: [String])

    /// Whether a body with this `Content-Type` header value is delivered as a stream.
    func streams(contentType: String?) -> Bool {
        switch self {
        case .none, .json:
            return false
        case .streamed:
            return true
        case .jsonOrStreamed(let streamedTypes):
            return RouteBody.streamed(contentTypes: streamedTypes).accepts(contentType: contentType)
        }
    }

    /// Whether a body with this `Content-Type` header value is acceptable.
    func accepts(contentType: String?) -> Bool {
        switch self {
        case .none:
            return true
        case .json:
            guard let contentType else { return false }
            return Self.isJSON(contentType)
        case .streamed(let accepted):
            if accepted.isEmpty { return true }
            guard let contentType else { return false }
            return accepted.contains { Self.isMediaType(contentType, $0) }
        case .jsonOrStreamed(let streamedTypes):
            return RouteBody.json.accepts(contentType: contentType)
                || RouteBody.streamed(contentTypes: streamedTypes).accepts(contentType: contentType)
        }
    }

    /// Whether the media type is `application/json` or `application/*+json`. An ASCII header
    /// (every real one) is compared as bytes, without the lowercased copy `mediaType` makes.
    static func isJSON(_ headerValue: String) -> Bool {
        guard isASCII(headerValue) else {
            let type = mediaType(headerValue)
            return type == "application/json" || (type.hasPrefix("application/") && type.hasSuffix("+json"))
        }
        let bytes = typeBytes(headerValue)
        let prefix = "application/".utf8
        guard equalIgnoringASCIICase(bytes.prefix(prefix.count), prefix) else { return false }
        let subtype = bytes.dropFirst(prefix.count)
        return equalIgnoringASCIICase(subtype, "json".utf8)
            || (subtype.count >= 5 && equalIgnoringASCIICase(subtype.suffix(5), "+json".utf8))
    }

    /// Whether the header's media type is `type`, in any case. ASCII (every real header) is
    /// compared as bytes, without a lowercased copy of both.
    private static func isMediaType(_ headerValue: String, _ type: String) -> Bool {
        guard isASCII(headerValue), isASCII(type) else { return type.lowercased() == mediaType(headerValue) }
        return equalIgnoringASCIICase(typeBytes(headerValue), type.utf8)
    }

    private static func isASCII(_ text: String) -> Bool { text.utf8.allSatisfy { $0 < 0x80 } }

    /// `Application/JSON; charset=utf-8` → `application/json`.
    /// Optional whitespace is spaces and tabs only (RFC 9110 OWS).
    static func mediaType(_ headerValue: String) -> String {
        Substring(typeBytes(headerValue)).lowercased()
    }

    /// The header value up to its parameters, without the whitespace around it.
    private static func typeBytes(_ headerValue: String) -> Substring.UTF8View {
        var bytes = headerValue.utf8[...]
        if let semicolon = bytes.firstIndex(of: UInt8(ascii: ";")) { bytes = bytes[..<semicolon] }
        let isWhitespace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        while let first = bytes.first, isWhitespace(first) { bytes = bytes.dropFirst() }
        while let last = bytes.last, isWhitespace(last) { bytes = bytes.dropLast() }
        return bytes
    }
}
