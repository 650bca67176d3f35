import CCrypto

/// A libcrypto call failed. Carries OpenSSL's error queue text for logs; it says nothing secret.
public struct CryptoError: Error, Sendable, CustomStringConvertible {
    public let operation: String
    public let openSSLMessage: String

    /// Drains OpenSSL's thread-local error queue so a later failure does not report this one.
    init(_ operation: String) {
        self.operation = operation
        var messages: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        openSSLMessage = messages.joined(separator: "; ")
    }

    public var description: String {
        openSSLMessage.isEmpty ? "\(operation) failed" : "\(operation) failed: \(openSSLMessage)"
    }
}
