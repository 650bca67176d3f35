import CCrypto

/// HMAC through libcrypto's one-shot `HMAC()` (not deprecated in OpenSSL 3).
public enum HMAC {
    public static func sha256(key: some Collection<UInt8>, data: some Collection<UInt8>) -> [UInt8] {
        var mac = [UInt8](repeating: 0, count: SHA256.digestLength)
        var length: UInt32 = 0
        // An empty array may have no base address, and a NULL key means "reuse the previous key"
        // to parts of the HMAC API, so empty inputs are passed as a real 1-byte buffer with
        // length 0.
        let keyCount = key.count
        let dataCount = data.count
        let keyBytes = keyCount == 0 ? [0] : Array(key)
        let dataBytes = dataCount == 0 ? [0] : Array(data)
        precondition(keyCount <= Int(Int32.max), "HMAC key too long")
        let result = keyBytes.withUnsafeBufferPointer { keyBuffer in
            dataBytes.withUnsafeBufferPointer { dataBuffer in
                mac.withUnsafeMutableBufferPointer { output in
                    CCrypto.HMAC(
                        EVP_sha256(), keyBuffer.baseAddress, Int32(keyCount), dataBuffer.baseAddress, dataCount,
                        output.baseAddress, &length)
                }
            }
        }
        // Same reasoning as SHA256: only allocation failure can get here.
        precondition(result != nil && length == UInt32(SHA256.digestLength), "HMAC(SHA-256) failed")
        return mac
    }
}
