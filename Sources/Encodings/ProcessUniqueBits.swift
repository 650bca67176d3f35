import Synchronization

/// 128 bits that no other call in this process returns and that are unlike any other process's:
/// two 64-bit words mixed (SplitMix64's finaliser, a bijection) from one counter and two random
/// seeds drawn once. For ids that must be unique, not secret (request ids, APNs' `apns-id`):
/// drawing them from the system each time cost a system call or two per request, and Foundation's
/// `UUID()` reads `/dev/urandom` through a file opened for each call.
public enum ProcessUniqueBits {
    public static func next() -> (UInt64, UInt64) {
        let count = counter.wrappingAdd(1, ordering: .relaxed).oldValue &* 0x9E37_79B9_7F4A_7C15
        return (mixed(seeds.0 &+ count), mixed(seeds.1 &+ count))
    }

    private static let counter = Atomic<UInt64>(0)
    private static let seeds: (UInt64, UInt64) = {
        var generator = SystemRandomNumberGenerator()
        return (generator.next(), generator.next())
    }()

    /// Every bit of the output depends on every bit of the input.
    private static func mixed(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
