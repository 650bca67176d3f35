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

    /// 16 random bytes as 32 lowercase hex characters.
    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let hex = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(32)
        for _ in 0..<16 {
            let byte = UInt8.random(in: 0...255, using: &generator)
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
