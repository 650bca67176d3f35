/// The topics an APNs client certificate may push to, from Apple's extension
/// 1.2.840.113635.100.6.3.6: a DER SEQUENCE of each topic (a UTF8String: the bundle id, its
/// `.voip`, its `.complication`) followed by a SEQUENCE naming its kind. A VoIP Services
/// certificate lists all three; older certificates lack the extension and name their one bundle
/// id in the subject's UID.
public enum APNsCertificateTopics {
    public static let extensionOID = "1.2.840.113635.100.6.3.6"

    /// The UTF8Strings directly inside the extension value's outer SEQUENCE; nil when the value
    /// is not that.
    public static func parse(_ value: [UInt8]) -> [String]? {
        var outer = DERReader(value[...])
        guard let sequence = outer.next(), sequence.tag == 0x30, outer.isAtEnd else { return nil }
        var inner = DERReader(sequence.content)
        var topics: [String] = []
        while !inner.isAtEnd {
            guard let element = inner.next() else { return nil }
            if element.tag == 0x0C { topics.append(String(decoding: element.content, as: UTF8.self)) }
        }
        return topics
    }
}

/// Reads DER TLV elements one after another (definite lengths only, as DER requires).
private struct DERReader {
    private var bytes: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { bytes.isEmpty }

    /// The next element's tag and content; nil when what is left is not one.
    mutating func next() -> (tag: UInt8, content: ArraySlice<UInt8>)? {
        guard let tag = bytes.popFirst(), let first = bytes.popFirst() else { return nil }
        var length = Int(first)
        if first & 0x80 != 0 {
            let count = Int(first & 0x7F)
            guard (1...4).contains(count), bytes.count >= count else { return nil }
            length = bytes.prefix(count).reduce(0) { $0 << 8 | Int($1) }
            bytes = bytes.dropFirst(count)
        }
        guard bytes.count >= length else { return nil }
        defer { bytes = bytes.dropFirst(length) }
        return (tag, bytes.prefix(length))
    }
}
