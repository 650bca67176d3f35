import Foundation
import NIOHTTP1

/// The proxies (load balancers) whose forwarding headers are believed, and the client address
/// they reveal. With none (the default) the client is the peer of the TCP connection and
/// `Forwarded` / `X-Forwarded-For` are ignored, since any client can write them.
public struct TrustedProxies: Sendable, Hashable, LosslessStringConvertible {
    public static let none = TrustedProxies("")!

    let blocks: [AddressBlock]
    public let description: String

    /// A comma-separated list of CIDR blocks or single addresses, e.g. `10.0.0.0/8, fd00::/8`;
    /// nil when any entry is not one.
    public init?(_ description: String) {
        let entries = description.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        var blocks: [AddressBlock] = []
        for entry in entries {
            guard let block = AddressBlock(entry) else { return nil }
            blocks.append(block)
        }
        self.blocks = blocks
        self.description = entries.joined(separator: ",")
    }

    /// Who sent the request: the peer, unless the peer is a trusted proxy; then, walking the
    /// forwarding chain (`Forwarded`'s `for=`, else `X-Forwarded-For`) back from the peer, the
    /// first hop that is not a trusted proxy. Hops further back were written by that client and
    /// prove nothing; only when every hop is trusted is the first one the client.
    func client(peer: String?, headers: HTTPHeaders) -> String {
        guard let peer, let peerAddress = IPAddress(peer), isTrusted(peerAddress) else { return peer ?? "unknown" }
        let hops = Self.forwardedFor(headers)
        guard let first = hops.first else { return peer }
        for hop in hops.reversed() {
            guard let address = IPAddress(hop), isTrusted(address) else { return hop }
        }
        return first
    }

    private func isTrusted(_ address: IPAddress) -> Bool {
        blocks.contains { $0.contains(address) }
    }

    /// The client side of each hop, oldest first: `Forwarded` (RFC 7239) when present, else
    /// `X-Forwarded-For`. Brackets, quotes and ports are taken off (`"[2001:db8::1]:4711"`).
    static func forwardedFor(_ headers: HTTPHeaders) -> [String] {
        let forwarded = headers["Forwarded"]
        if !forwarded.isEmpty {
            return forwarded.flatMap { $0.split(separator: ",") }.compactMap { element in
                element.split(separator: ";").lazy.map { $0.trimmingCharacters(in: .whitespaces) }
                    .first { $0.lowercased().hasPrefix("for=") }
                    .map { node(String($0.dropFirst(4))) }
            }
        }
        return headers["X-Forwarded-For"].flatMap { $0.split(separator: ",") }.map {
            node($0.trimmingCharacters(in: .whitespaces))
        }
    }

    private static func node(_ text: String) -> String {
        var node = Substring(text)
        if node.hasPrefix("\""), node.hasSuffix("\""), node.count >= 2 { node = node.dropFirst().dropLast() }
        if node.hasPrefix("["), let end = node.firstIndex(of: "]") {
            return String(node[node.index(after: node.startIndex)..<end])
        }
        // IPv4 with a port: one colon (an IPv6 address without brackets has several).
        if node.filter({ $0 == ":" }).count == 1, let colon = node.firstIndex(of: ":") { return String(node[..<colon]) }
        return String(node)
    }
}
