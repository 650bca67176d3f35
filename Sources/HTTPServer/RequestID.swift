import Encodings
import NIOHTTP1

/// The id that ties a request's response, log lines and metrics together.
public enum RequestID {
    static let headerName = "x-request-id"
    static let maxLength = 128

    /// The client's `X-Request-ID` when it is sane (1–128 printable ASCII characters, so it is
    /// safe to log), else a fresh random one.
    static func from(_ headers: HTTPHeaders) -> String {
        if let incoming = headers.first(name: headerName), isAcceptable(incoming) {
            return incoming
        }
        return generate()
    }

    static func isAcceptable(_ value: String) -> Bool {
        !value.isEmpty && value.utf8.count <= maxLength && value.utf8.allSatisfy { (0x20...0x7E).contains($0) }
    }

    /// 32 lowercase hex characters from `ProcessUniqueBits`: unique within the process and
    /// unlike any other process's. The id ties a request's lines together; it is not a secret.
    public static func generate() -> String {
        let (first, second) = ProcessUniqueBits.next()
        // Big-endian bytes: the hex reads as the two words written out, most significant first.
        return withUnsafeBytes(of: (first.bigEndian, second.bigEndian)) { Hex.encode($0.bindMemory(to: UInt8.self)) }
    }
}
