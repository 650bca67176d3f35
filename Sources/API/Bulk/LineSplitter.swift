import NIOCore

/// Cuts a byte stream into numbered lines (`\n` or `\r\n`). A line longer than `maxLineBytes` is
/// not kept: it comes out marked `tooLong` once its end arrives. Blank lines are counted but not
/// returned.
struct LineSplitter {
    struct Line {
        let number: Int
        let bytes: [UInt8]
        let tooLong: Bool
    }

    let maxLineBytes: Int
    private var partial: [UInt8] = []
    private var partialTooLong = false
    private var number = 0

    init(maxLineBytes: Int) {
        self.maxLineBytes = maxLineBytes
    }

    /// Lines ended so far, blank ones included: what bounds a stream of nothing but newlines.
    var linesEnded: Int { number }

    /// Whether the line still being read is already too long: a stream may never end it.
    var readingTooLongLine: Bool { partialTooLong }

    mutating func feed(_ chunk: ByteBuffer) -> [Line] {
        var lines: [Line] = []
        for byte in chunk.readableBytesView {
            if byte == UInt8(ascii: "\n") {
                if let line = endLine() { lines.append(line) }
            } else if partial.count < maxLineBytes {
                partial.append(byte)
            } else {
                partialTooLong = true
            }
        }
        return lines
    }

    /// The last line, when the stream does not end with a newline.
    mutating func finish() -> [Line] {
        guard !partial.isEmpty || partialTooLong else { return [] }
        return endLine().map { [$0] } ?? []
    }

    private mutating func endLine() -> Line? {
        number += 1
        defer {
            partial.removeAll(keepingCapacity: true)
            partialTooLong = false
        }
        if partial.last == UInt8(ascii: "\r") { partial.removeLast() }
        if !partialTooLong, partial.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) { return nil }
        return Line(number: number, bytes: partial, tooLong: partialTooLong)
    }
}
