import CCrypto

/// libcrypto's PEM reader and writer work on `BIO` streams; this runs them over Swift bytes.
enum MemoryBIO {
    /// Runs `body` with a read-only BIO over `bytes`.
    static func reading<Result>(_ bytes: [UInt8], _ body: (OpaquePointer) -> Result?) -> Result? {
        bytes.withUnsafeBytes { buffer -> Result? in
            guard !bytes.isEmpty, let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(bytes.count)) else { return nil }
            defer { BIO_free(bio) }
            return body(bio)
        }
    }

    /// Runs `body` with an empty writable BIO and returns what it wrote; throws when `body`
    /// returns false.
    static func writing(_ operation: String, _ body: (OpaquePointer) -> Bool) throws -> [UInt8] {
        guard let bio = BIO_new(BIO_s_mem()) else { throw CryptoError("BIO_new") }
        defer { BIO_free(bio) }
        guard body(bio) else { throw CryptoError(operation) }
        var output = [UInt8](repeating: 0, count: BIO_ctrl_pending(bio))
        let read = output.withUnsafeMutableBytes { BIO_read(bio, $0.baseAddress, Int32($0.count)) }
        guard read == output.count else { throw CryptoError("BIO_read") }
        return output
    }
}
