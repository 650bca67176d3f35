import PushRules
import Testing

@Suite struct FCMTTLTests {
    @Test func readsWhatFCMWritesAndRefusesTheRest() {
        #expect(FCMTTL.parse("30s") == .seconds(30))
        #expect(FCMTTL.parse("29.25s") == .milliseconds(29_250))
        #expect(FCMTTL.parse("0.000000001s") == .nanoseconds(1))
        for bad in ["30", "s", "-1s", "1.s", "1.0000000001s", "1.5.5s", "abc"] { #expect(FCMTTL.parse(bad) == nil) }
    }

    /// Whole milliseconds, rounded down: what is left is never overstated.
    @Test func writesWholeMillisecondsRoundedDown() {
        #expect(FCMTTL.format(.seconds(30)) == "30s")
        #expect(FCMTTL.format(.milliseconds(29_250)) == "29.250s")
        #expect(FCMTTL.format(.microseconds(1_999)) == "0.001s")
        #expect(FCMTTL.format(.milliseconds(-5)) == "0s")
    }
}
