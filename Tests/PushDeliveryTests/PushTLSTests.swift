import PushDelivery
import Testing

@Suite struct PushTLSTests {
    /// A wrong `PUSH_CA_FILE` fails at startup, not as a connection error at the first push.
    @Test func aMissingCAFileIsRefusedWhenTheContextIsMade() {
        #expect(throws: (any Error).self) { try PushTLS.makeContext(additionalCAFile: "/nonexistent/ca.pem") }
    }

    @Test func withoutACAFileTheSystemRootsAreUsed() throws {
        _ = try PushTLS.makeContext(additionalCAFile: nil)
    }
}
