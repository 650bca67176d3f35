/// One-dimensional `text[]` literals: what the server prints and what it parses.
enum PostgresArrayLiteral {
    /// `{"a","b\"c",NULL}`: every element quoted, backslashes and quotes escaped; nil is NULL.
    /// Built as UTF-8 bytes: a group-commit batch or an import chunk sends nine of these with up to
    /// a thousand elements each.
    static func format(_ elements: [String?]) -> String {
        format(count: elements.count) { write in
            for element in elements { write(element) }
        }
    }

    /// The same for elements that are never NULL.
    static func format(nonNull elements: [String]) -> String {
        format(count: elements.count) { write in
            for element in elements { write(element) }
        }
    }

    private static func format(count: Int, _ elements: ((String?) -> Void) -> Void) -> String {
        var literal: [UInt8] = [UInt8(ascii: "{")]
        literal.reserveCapacity(2 + count * 16)
        var first = true
        elements { element in
            if !first { literal.append(UInt8(ascii: ",")) }
            first = false
            guard var element else {
                literal.append(contentsOf: "NULL".utf8)
                return
            }
            literal.append(UInt8(ascii: "\""))
            element.withUTF8 { bytes in
                for byte in bytes {
                    if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { literal.append(UInt8(ascii: "\\")) }
                    literal.append(byte)
                }
            }
            literal.append(UInt8(ascii: "\""))
        }
        literal.append(UInt8(ascii: "}"))
        return String(decoding: literal, as: UTF8.self)
    }

    /// Parses the server's output, where elements are quoted only when they need it and a bare
    /// `NULL` is SQL NULL. Returns nil for NULL elements, nested arrays and malformed text.
    static func parse(_ literal: String) -> [String]? {
        // The usual answer (no tokens evicted, say): no copy of the text to find nothing in it.
        if literal == "{}" { return [] }
        let bytes = Array(literal.utf8)
        guard bytes.first == UInt8(ascii: "{"), bytes.last == UInt8(ascii: "}") else { return nil }
        if bytes.count == 2 { return [] }
        var elements: [String] = []
        var index = 1
        while true {
            var element: [UInt8] = []
            let quoted = bytes[index] == UInt8(ascii: "\"")
            if quoted { index += 1 }
            while true {
                guard index < bytes.count - (quoted ? 1 : 0) else { return nil }
                let byte = bytes[index]
                if quoted && byte == UInt8(ascii: "\"") {
                    index += 1
                    break
                }
                if !quoted && (byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}")) { break }
                if byte == UInt8(ascii: "{") && !quoted { return nil }
                if byte == UInt8(ascii: "\\") {
                    index += 1
                    guard index < bytes.count else { return nil }
                }
                element.append(bytes[index])
                index += 1
            }
            // The server quotes empty strings, and a bare NULL is SQL NULL.
            if !quoted && (element.isEmpty || element == Array("NULL".utf8)) { return nil }
            elements.append(String(decoding: element, as: UTF8.self))
            guard index < bytes.count else { return nil }
            if bytes[index] == UInt8(ascii: "}") { return index == bytes.count - 1 ? elements : nil }
            guard bytes[index] == UInt8(ascii: ",") else { return nil }
            index += 1
        }
    }
}
