#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An IPv4 or IPv6 address as its network-order bytes (4 or 16). An IPv4-mapped IPv6 address
/// (`::ffff:192.0.2.1`, what a dual-stack socket reports for an IPv4 peer) is its IPv4 address,
/// so one client has one address whichever way it arrived.
struct IPAddress: Hashable, Sendable {
    let bytes: [UInt8]

    /// Nil for anything that is not an address in the usual text form (no brackets, no port).
    init?(_ text: some StringProtocol) {
        let text = String(text)
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let all = withUnsafeBytes(of: &v6) { Array($0) }
        let mappedPrefix: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff]
        bytes = all.starts(with: mappedPrefix) ? Array(all.suffix(4)) : all
    }
}
