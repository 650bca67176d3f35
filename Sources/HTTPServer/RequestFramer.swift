/// Follows the framing of a stream of HTTP/1.1 requests byte by byte, ahead of NIO's decoder,
/// to enforce the head limits and refuse ambiguous framing before anything is buffered.
///
/// NIO's llhttp-based decoder buffers a whole head before it reports anything and only fails
/// with generic parse errors, so the limits are checked here as bytes arrive: a request line
/// over the limit is a 414, a header block over the byte or line limit a 431, and
/// `Content-Length` together with `Transfer-Encoding`, several `Content-Length`s or a transfer
/// coding other than `chunked` are refused (request smuggling). So are the Host rules of
/// RFC 9112 §3.2, which llhttp does not check: an HTTP/1.1 request without `Host`, any request
/// with several, or one whose value is not an authority (400); and `Transfer-Encoding` in an
/// HTTP/1.0 request, whose framing §6.1 calls faulty (400). To find where the next head
/// starts (pipelining) the framer also skips bodies: `Content-Length` bytes, or chunked framing.
///
/// Pure: no channel, no clock; ``scan(_:)`` returns what happened at which offset.
struct RequestFramer {
    struct Limits: Sendable {
        var maxRequestLineBytes: Int
        var maxHeaderBytes: Int
        var maxHeaderCount: Int
    }

    enum Event: Equatable {
        /// The first byte of a request head is at this offset.
        case headStarted(at: Int)
        /// The byte at this offset broke a rule; nothing from here on should be parsed.
        case rejected(at: Int, RequestRejection)
    }

    private enum State {
        case betweenRequests, requestLine, headerLine, body, chunkSize, chunkData, chunkDataEnd, trailers, rejected
    }

    /// Longest chunk-size line (size plus extensions) accepted.
    static let maxChunkSizeLineBytes = 4096

    private let limits: Limits
    private var state = State.betweenRequests
    private var lineLength = 0
    private var headerBytes = 0
    private var headerCount = 0
    private var line: [UInt8] = []
    private var contentLengths: [String] = []
    private var transferEncodings: [String] = []
    private var hosts: [String] = []
    private var isHTTP10 = false
    /// Body bytes left (Content-Length) or bytes left in the current chunk.
    private var remaining = 0
    private var chunkDigits = 0
    private var inChunkExtension = false
    private var sawCR = false

    init(limits: Limits) {
        self.limits = limits
    }

    /// Whether the framer sits between requests (no head or body partly received).
    var isBetweenRequests: Bool { state == .betweenRequests }

    /// Consumes `bytes`, the next bytes of the connection, handing each event to `report` in
    /// order (not an array: most reads start one head, and an array per read was an allocation
    /// per request); offsets in events are indices into `bytes`. After a rejection every further
    /// byte is ignored.
    mutating func scan<Bytes: RandomAccessCollection>(_ bytes: Bytes, report: (Event) -> Void)
    where Bytes.Element == UInt8, Bytes.Index == Int {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            switch state {
            case .rejected:
                return
            case .body, .chunkData:
                // Skip body bytes in bulk; only their count matters.
                let skipped = min(remaining, bytes.endIndex - index)
                index += skipped
                remaining -= skipped
                if remaining == 0 {
                    state = state == .body ? .betweenRequests : .chunkDataEnd
                    sawCR = false
                }
                continue
            default:
                break
            }
            if state == .betweenRequests, bytes[index] != UInt8(ascii: "\r"), bytes[index] != UInt8(ascii: "\n") {
                report(.headStarted(at: bytes.distance(from: bytes.startIndex, to: index)))
            }
            if let rejection = step(bytes[index]) {
                state = .rejected
                report(.rejected(at: bytes.distance(from: bytes.startIndex, to: index), rejection))
                return
            }
            index += 1
        }
    }

    private mutating func step(_ byte: UInt8) -> RequestRejection? {
        switch state {
        case .betweenRequests:
            // Empty lines before a request line are tolerated (RFC 9112 §2.2).
            if byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n") { return nil }
            startHead()
            line.append(byte)
            lineLength = 1
            state = .requestLine
            return nil
        case .requestLine:
            if byte == UInt8(ascii: "\n") {
                state = .headerLine
                lineLength = 0
                return requestLineEnded()
            }
            // The line ending is not part of the limit (a stray CR is the decoder's to refuse).
            if byte == UInt8(ascii: "\r") { return nil }
            lineLength += 1
            line.append(byte)
            return lineLength > limits.maxRequestLineBytes ? .requestLineTooLong(limits.maxRequestLineBytes) : nil
        case .headerLine:
            headerBytes += 1
            if headerBytes > limits.maxHeaderBytes { return .headersTooLarge(limits.maxHeaderBytes) }
            guard byte == UInt8(ascii: "\n") else {
                line.append(byte)
                return nil
            }
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            if line.isEmpty { return endHead() }
            defer { line.removeAll(keepingCapacity: true) }
            return headerLineEnded()
        case .chunkSize:
            return chunkSizeStep(byte)
        case .chunkDataEnd:
            if byte == UInt8(ascii: "\r") && !sawCR {
                sawCR = true
                return nil
            }
            guard byte == UInt8(ascii: "\n") else { return .malformed("Chunk data is not followed by CRLF.") }
            startChunk()
            return nil
        case .trailers:
            headerBytes += 1
            if headerBytes > limits.maxHeaderBytes { return .headersTooLarge(limits.maxHeaderBytes) }
            if byte == UInt8(ascii: "\n") {
                if lineLength == 0 { state = .betweenRequests }
                lineLength = 0
            } else if byte != UInt8(ascii: "\r") {
                lineLength += 1
            }
            return nil
        case .body, .chunkData, .rejected:
            return nil  // handled in bulk by scan
        }
    }

    private mutating func startHead() {
        headerBytes = 0
        headerCount = 0
        line.removeAll(keepingCapacity: true)
        contentLengths.removeAll(keepingCapacity: true)
        transferEncodings.removeAll(keepingCapacity: true)
        hosts.removeAll(keepingCapacity: true)
        isHTTP10 = false
    }

    /// Refuses a request line that is not exactly `method SP target SP version` (llhttp lets
    /// runs of spaces through; a proxy in front may split such a line differently) and notes
    /// the version for the Host and Transfer-Encoding rules. The decoder validates the parts.
    private mutating func requestLineEnded() -> RequestRejection? {
        defer { line.removeAll(keepingCapacity: true) }
        // Found in place rather than split: a request line per request, no array of parts.
        let space = UInt8(ascii: " ")
        guard let first = line.firstIndex(of: space), first > 0,
            let second = line[(first + 1)...].firstIndex(of: space), second > first + 1,
            second + 1 < line.count, !line[(second + 1)...].contains(space)
        else {
            return .malformed("The request line must be: method, one space, target, one space, version.")
        }
        isHTTP10 = line[(second + 1)...].elementsEqual("HTTP/1.0".utf8)
        return nil
    }

    private mutating func headerLineEnded() -> RequestRejection? {
        headerCount += 1
        if headerCount > limits.maxHeaderCount { return .tooManyHeaders(limits.maxHeaderCount) }
        // Obsolete line folding would let a value continue on the next line; refuse it rather
        // than risk reading the framing headers differently from the decoder.
        if line.first == UInt8(ascii: " ") || line.first == UInt8(ascii: "\t") {
            return .malformed("Obsolete header line folding is not supported.")
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return nil }  // the decoder refuses it
        // "Content-Length : 5" must not be read as a framing header by one parser and not the
        // other; RFC 9112 §5.1 says to refuse whitespace before the colon.
        if line[..<colon].contains(where: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) {
            return .malformed("Whitespace between a header name and its colon.")
        }
        // Compared as bytes: only the three framing headers become strings, not every header.
        let name = line[..<colon]
        let value = line[(colon + 1)...]
        if Self.isName(name, "content-length") {
            contentLengths.append(Self.text(value))
        } else if Self.isName(name, "transfer-encoding") {
            transferEncodings.append(Self.text(value))
        } else if Self.isName(name, "host") {
            hosts.append(Self.text(value))
        }
        return nil
    }

    /// Trimmed as bytes, then decoded: decoded first, a `Host` value with its leading space was a
    /// heap string (over 15 bytes) on every request.
    private static func text(_ value: ArraySlice<UInt8>) -> String {
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = value.firstIndex(where: { !isSpace($0) }), let last = value.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(decoding: value[first...last], as: UTF8.self)
    }

    /// Whether a header name is `lowercaseName`, in any case.
    private static func isName(_ name: ArraySlice<UInt8>, _ lowercaseName: StaticString) -> Bool {
        guard name.count == lowercaseName.utf8CodeUnitCount else { return false }
        return lowercaseName.withUTF8Buffer { equalIgnoringASCIICase(name, $0) }
    }

    private mutating func endHead() -> RequestRejection? {
        if hosts.count > 1 { return .malformed("A request must not have more than one Host header.") }
        if hosts.isEmpty && !isHTTP10 { return .malformed("An HTTP/1.1 request must have a Host header.") }
        if let host = hosts.first, !Self.isAuthority(host) {
            return .malformed("The Host header is not a valid host[:port].")
        }
        if isHTTP10 && !transferEncodings.isEmpty {
            return .malformed("Transfer-Encoding is not allowed in an HTTP/1.0 request.")
        }
        if !transferEncodings.isEmpty && !contentLengths.isEmpty {
            return .malformed("A request must not have both Content-Length and Transfer-Encoding.")
        }
        if !transferEncodings.isEmpty {
            guard transferEncodings.count == 1, transferEncodings[0].lowercased() == "chunked" else {
                return .unsupportedTransferEncoding
            }
            startChunk()
            return nil
        }
        if !contentLengths.isEmpty {
            guard contentLengths.count == 1, let length = Self.parseContentLength(contentLengths[0]) else {
                return .malformed("Content-Length must be given once, as a decimal number.")
            }
            remaining = length
            state = length == 0 ? .betweenRequests : .body
            return nil
        }
        state = .betweenRequests
        return nil
    }

    /// RFC 3986 `host [ ":" port ]` by its alphabet: unreserved, pct-encoded, sub-delims, ':' and
    /// the brackets of an IP literal. Empty is allowed (RFC 9112 §3.2: no authority to send).
    private static func isAuthority(_ value: String) -> Bool {
        value.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            default:
                "-._~%!$&'()*+,;=:[]".utf8.contains(byte)
            }
        }
    }

    private static func parseContentLength(_ value: String) -> Int? {
        guard (1...18).contains(value.utf8.count),
            value.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        return Int(value)
    }

    private mutating func startChunk() {
        state = .chunkSize
        lineLength = 0
        chunkDigits = 0
        remaining = 0
        inChunkExtension = false
        sawCR = false
    }

    private mutating func chunkSizeStep(_ byte: UInt8) -> RequestRejection? {
        lineLength += 1
        if lineLength > Self.maxChunkSizeLineBytes { return .malformed("Chunk size line too long.") }
        if sawCR && byte != UInt8(ascii: "\n") { return .malformed("Chunk size line is not ended by CRLF.") }
        switch byte {
        case UInt8(ascii: "\n"):
            guard chunkDigits > 0 else { return .malformed("Missing chunk size.") }
            if remaining == 0 {
                state = .trailers
                lineLength = 0
                headerBytes = 0
            } else {
                state = .chunkData
            }
        case UInt8(ascii: "\r"):
            sawCR = true
        case _ where inChunkExtension:
            break
        case UInt8(ascii: ";"), UInt8(ascii: " "), UInt8(ascii: "\t"):
            inChunkExtension = true
        default:
            guard let digit = Self.hexValue(byte) else { return .malformed("Invalid chunk size.") }
            chunkDigits += 1
            // 15 hex digits stay below Int.max; no sane body comes near.
            if chunkDigits > 15 { return .malformed("Chunk size too large.") }
            remaining = remaining << 4 | digit
        }
        return nil
    }

    private static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte - UInt8(ascii: "A")) + 10
        default: nil
        }
    }
}
