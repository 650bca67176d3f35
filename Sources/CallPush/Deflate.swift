import CZlib

/// zlib-wrapped DEFLATE (RFC 1950/1951), what zlib's `compress2` writes and `inflate`/`uncompress`
/// (pako, java.util.zip.Inflater, Python's zlib) read back: SignalWire's `invite` compression.
enum Deflate {
    struct Failure: Error, CustomStringConvertible {
        let code: Int32
        var description: String { "zlib compress2 failed with code \(code)" }
    }

    static func compress(_ bytes: [UInt8]) throws(Failure) -> [UInt8] {
        var capacity = compressBound(uLong(bytes.count))
        var output = [UInt8](repeating: 0, count: Int(capacity))
        // A real 1-byte buffer for empty input: an empty array may have no base address.
        let input = bytes.isEmpty ? [0] : bytes
        let status = input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { destination in
                compress2(
                    destination.baseAddress, &capacity, source.baseAddress, uLong(bytes.count), Z_BEST_COMPRESSION)
            }
        }
        guard status == Z_OK else { throw Failure(code: status) }
        return Array(output.prefix(Int(capacity)))
    }
}
