import NIOHTTP1
import Testing

@testable import API

@Suite("Trusted proxies")
struct TrustedProxiesTests {
    @Test func blocksHoldTheirAddressesOnly() throws {
        let block = try #require(AddressBlock("10.1.0.0/16"))
        #expect(block.contains(try #require(IPAddress("10.1.255.3"))))
        #expect(!block.contains(try #require(IPAddress("10.2.0.1"))))
        #expect(!block.contains(try #require(IPAddress("::1"))))
        let v6 = try #require(AddressBlock("fd00::/8"))
        #expect(v6.contains(try #require(IPAddress("fd12:3456::1"))))
        #expect(!v6.contains(try #require(IPAddress("fe80::1"))))
        #expect(try #require(AddressBlock("192.0.2.1")).contains(try #require(IPAddress("::ffff:192.0.2.1"))))
        #expect(try #require(AddressBlock("0.0.0.0/0")).contains(try #require(IPAddress("198.51.100.1"))))
    }

    @Test(arguments: ["10.0.0.1/8", "10.0.0.0/33", "10.0.0.0/", "10.0.0/8", "fd00::/129", "host", "10.0.0.0/+8", ""])
    func malformedBlocksAreRefused(text: String) {
        #expect(AddressBlock(text) == nil)
    }

    @Test func aListParsesWholeOrNotAtAll() {
        #expect(TrustedProxies("10.0.0.0/8, fd00::/8")?.blocks.count == 2)
        #expect(TrustedProxies("10.0.0.0/8, nonsense") == nil)
        #expect(TrustedProxies("")?.blocks.isEmpty == true)
    }

    @Test func theClientIsThePeerUnlessThePeerIsTrusted() throws {
        let proxies = try #require(TrustedProxies("10.0.0.0/8"))
        let headers: HTTPHeaders = ["X-Forwarded-For": "203.0.113.7"]
        #expect(proxies.client(peer: "198.51.100.1", headers: headers) == "198.51.100.1")
        #expect(proxies.client(peer: "10.0.0.5", headers: headers) == "203.0.113.7")
        #expect(proxies.client(peer: "10.0.0.5", headers: [:]) == "10.0.0.5")
        #expect(TrustedProxies.none.client(peer: "10.0.0.5", headers: headers) == "10.0.0.5")
    }

    @Test func theChainIsWalkedBackToTheFirstUntrustedHop() throws {
        let proxies = try #require(TrustedProxies("10.0.0.0/8"))
        let spoofed: HTTPHeaders = ["X-Forwarded-For": "1.2.3.4, 203.0.113.7, 10.0.0.9"]
        #expect(proxies.client(peer: "10.0.0.5", headers: spoofed) == "203.0.113.7")
        let allTrusted: HTTPHeaders = ["X-Forwarded-For": "10.0.0.8, 10.0.0.9"]
        #expect(proxies.client(peer: "10.0.0.5", headers: allTrusted) == "10.0.0.8")
        let twoLines = HTTPHeaders([("X-Forwarded-For", "203.0.113.7"), ("X-Forwarded-For", "10.0.0.9")])
        #expect(proxies.client(peer: "10.0.0.5", headers: twoLines) == "203.0.113.7")
    }

    @Test func forwardedIsPreferredAndItsNodesAreUnwrapped() throws {
        let proxies = try #require(TrustedProxies("10.0.0.0/8"))
        let headers = HTTPHeaders([
            ("Forwarded", #"for="[2001:db8:cafe::17]:4711";proto=https, For=192.0.2.43:8080;by=10.0.0.1"#),
            ("X-Forwarded-For", "198.51.100.1"),
        ])
        #expect(proxies.client(peer: "10.0.0.5", headers: headers) == "192.0.2.43")
        let v6: HTTPHeaders = ["Forwarded": #"for="[2001:db8:cafe::17]:4711""#]
        #expect(proxies.client(peer: "10.0.0.5", headers: v6) == "2001:db8:cafe::17")
    }
}
