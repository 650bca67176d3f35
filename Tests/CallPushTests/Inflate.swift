import CZlib

/// zlib's `uncompress`, what a phone's inflate does: the other half of the SignalWire invite.
enum Inflate {
    static func decompress(_ bytes: [UInt8], limit: Int = 1 << 20) -> [UInt8]? {
        var output = [UInt8](repeating: 0, count: limit)
        var length = uLong(limit)
        let status = output.withUnsafeMutableBufferPointer { destination in
            bytes.withUnsafeBufferPointer { source in
                uncompress(destination.baseAddress, &length, source.baseAddress, uLong(bytes.count))
            }
        }
        guard status == Z_OK else { return nil }
        return Array(output.prefix(Int(length)))
    }
}
