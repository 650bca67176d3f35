import NIOHTTP1
import Synchronization

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

    /// 32 lowercase hex characters, unique within the process and unlike any other process's:
    /// two 64-bit words mixed (SplitMix64, a bijection) from one counter and two random seeds
    /// drawn once. Drawing the words from the system for every request cost two `getrandom`
    /// system calls each time. The id ties a request's lines together; it is not a secret.
    public static func generate() -> String {
        let count = counter.wrappingAdd(1, ordering: .relaxed).oldValue
        let first = mixed(seeds.0 &+ count &* 0x9E37_79B9_7F4A_7C15)
        let second = mixed(seeds.1 &+ count &* 0x9E37_79B9_7F4A_7C15)
        return String(unsafeUninitializedCapacity: 32) { out in
            for index in 0..<32 {
                let word = index < 16 ? first : second
                let nibble = UInt8(truncatingIfNeeded: word >> UInt64(60 - 4 * (index % 16))) & 0x0F
                out[index] = nibble < 10 ? 48 + nibble : 87 + nibble
            }
            return 32
        }
    }

    private static let counter = Atomic<UInt64>(0)
    private static let seeds: (UInt64, UInt64) = {
        var generator = SystemRandomNumberGenerator()
        return (generator.next(), generator.next())
    }()

    /// SplitMix64's finaliser: every bit of the output depends on every bit of the input.
    private static func mixed(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
