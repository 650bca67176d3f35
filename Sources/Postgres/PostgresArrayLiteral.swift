/// One-dimensional `text[]` literals: what the server prints and what it parses.
public enum PostgresArrayLiteral {
    /// `{"a","b\"c",NULL}`: every element quoted, backslashes and quotes escaped; nil is NULL.
    static func format(_ elements: [String?]) -> String {
        format { write in
            for element in elements { write("", element) }
        }
    }

    /// The same for elements that are never NULL.
    static func format(nonNull elements: [String]) -> String {
        format { write in
            for element in elements { write("", element) }
        }
    }

    /// The literal of the elements `elements` writes, in order, each with a prefix written inside
    /// its quotes (`token:` of a lock key, say), so that no String is made per prefixed element.
    /// `elements` runs twice: once to size the literal, once to write it into a String of exactly
    /// that size (a group-commit batch or an import chunk sends nine of these with up to a
    /// thousand elements each; a growing byte array and its copy into a String were two to four
    /// allocations per literal).
    public static func format(
        _ elements: (_ write: (_ prefix: StaticString, _ element: String?) -> Void) -> Void
    ) -> String {
        var size = 2
        var count = 0
        elements { prefix, element in
            count += 1
            guard var element else {
                size += 4
                return
            }
            size += 2
            prefix.withUTF8Buffer { bytes in
                for byte in bytes { size += needsEscape(byte) ? 2 : 1 }
            }
            element.withUTF8 { bytes in
                for byte in bytes { size += needsEscape(byte) ? 2 : 1 }
            }
        }
        size += max(0, count - 1)
        // The writes go through `put(_:into:at:)` with the cursor passed inout: a nested function
        // capturing `end` made every byte written pay a run-time exclusivity check (2% of the
        // service's CPU per registration in a profile).
        return String(unsafeUninitializedCapacity: size) { buffer in
            var end = 0
            put(UInt8(ascii: "{"), into: buffer, at: &end)
            elements { prefix, element in
                if end > 1 { put(UInt8(ascii: ","), into: buffer, at: &end) }
                guard var element else {
                    for byte in "NULL".utf8 { put(byte, into: buffer, at: &end) }
                    return
                }
                put(UInt8(ascii: "\""), into: buffer, at: &end)
                prefix.withUTF8Buffer { putEscaped($0, into: buffer, at: &end) }
                element.withUTF8 { putEscaped($0, into: buffer, at: &end) }
                put(UInt8(ascii: "\""), into: buffer, at: &end)
            }
            put(UInt8(ascii: "}"), into: buffer, at: &end)
            return end
        }
    }

    private static func put(_ byte: UInt8, into buffer: UnsafeMutableBufferPointer<UInt8>, at end: inout Int) {
        buffer[end] = byte
        end += 1
    }

    private static func putEscaped(
        _ bytes: UnsafeBufferPointer<UInt8>, into buffer: UnsafeMutableBufferPointer<UInt8>, at end: inout Int
    ) {
        for byte in bytes {
            if needsEscape(byte) { put(UInt8(ascii: "\\"), into: buffer, at: &end) }
            put(byte, into: buffer, at: &end)
        }
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
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
