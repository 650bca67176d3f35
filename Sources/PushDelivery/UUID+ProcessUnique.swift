import Encodings
import Foundation

extension UUID {
    /// A version 4 UUID from `ProcessUniqueBits`: a push's `apns-id`, unique without the file
    /// open and read of `/dev/urandom` that Foundation's `UUID()` makes for each id on Linux.
    public static func processUnique() -> UUID {
        let (high, low) = ProcessUniqueBits.next()
        let versioned = (high & ~0xF000) | 0x4000
        let variant = (low & ~(0xC000 << 48)) | (0x8000 << 48)
        // The 16 bytes read in place as `uuid_t`: an array of them was an allocation per push.
        let bytes = withUnsafeBytes(of: (versioned.bigEndian, variant.bigEndian)) { $0.loadUnaligned(as: uuid_t.self) }
        return UUID(uuid: bytes)
    }
}
