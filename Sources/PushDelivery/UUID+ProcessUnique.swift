import Encodings
import Foundation

extension UUID {
    /// A version 4 UUID from `ProcessUniqueBits`: a push's `apns-id`, unique without the file
    /// open and read of `/dev/urandom` that Foundation's `UUID()` makes for each id on Linux.
    public static func processUnique() -> UUID {
        let (high, low) = ProcessUniqueBits.next()
        let versioned = (high & ~0xF000) | 0x4000
        let variant = (low & ~(0xC000 << 48)) | (0x8000 << 48)
        let bytes = withUnsafeBytes(of: (versioned.bigEndian, variant.bigEndian)) { Array($0) }
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }
}
