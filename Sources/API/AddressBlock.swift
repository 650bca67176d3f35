/// A CIDR block such as `10.0.0.0/8` or `fd00::/8`; a bare address is a block of one.
struct AddressBlock: Hashable, Sendable {
    let network: IPAddress
    let prefixLength: Int

    /// Nil for a malformed address, a prefix longer than the address or bits set past the prefix
    /// (`10.0.0.1/8` is refused rather than guessed at).
    init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let network = IPAddress(parts[0]) else { return nil }
        let bits = network.bytes.count * 8
        if parts.count == 1 {
            prefixLength = bits
        } else {
            guard parts[1].allSatisfy({ $0.isASCII && $0.isNumber }), let length = Int(parts[1]),
                (0...bits).contains(length)
            else {
                return nil
            }
            prefixLength = length
        }
        self.network = network
        guard Self.masked(network.bytes, prefixLength) == network.bytes else { return nil }
    }

    func contains(_ address: IPAddress) -> Bool {
        address.bytes.count == network.bytes.count && Self.masked(address.bytes, prefixLength) == network.bytes
    }

    private static func masked(_ bytes: [UInt8], _ prefixLength: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            byte & ~(UInt8.max >> min(8, max(0, prefixLength - index * 8)))
        }
    }
}
