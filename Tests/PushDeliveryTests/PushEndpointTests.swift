import PushDelivery
import RegistryCore
import Testing

@Suite struct PushEndpointTests {
    @Test(arguments: [
        ("https://api.push.apple.com", "api.push.apple.com", 443, "api.push.apple.com"),
        ("https://localhost:8443", "localhost", 8443, "localhost:8443"),
        ("https://Push.Example/", "push.example", 443, "push.example"),
    ])
    func parses(url: String, host: String, port: Int, authority: String) throws {
        let endpoint = try PushEndpoint(url)
        #expect(endpoint.host == host)
        #expect(endpoint.port == port)
        #expect(endpoint.authority == authority)
    }

    @Test(arguments: [
        "http://api.push.apple.com", "https://", "https://host/path", "https://host:0", "https://host:70000",
        "https://user@host", "https://host?x", "api.push.apple.com",
    ])
    func refusesAnythingButAnHTTPSOrigin(url: String) {
        #expect(throws: ValidationError.self) { try PushEndpoint(url) }
    }
}
