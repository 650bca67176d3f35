/// `android.ttl` as FCM v1 spells a duration (a protobuf `Duration` in JSON): seconds with up
/// to nine decimals and an `s`, like `30s` or `29.250s`. The sender rewrites it on every
/// attempt to what is left of the window, so a retry never outlives the ring.
public enum FCMTTL {
    /// The duration `text` spells; nil when it is not one.
    public static func parse(_ text: String) -> Duration? {
        guard text.hasSuffix("s") else { return nil }
        let parts = text.dropLast().split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let seconds = Int64(parts[0]), seconds >= 0 else { return nil }
        guard parts.count == 2 else { return .seconds(seconds) }
        let fraction = parts[1]
        guard (1...9).contains(fraction.count), fraction.allSatisfy(\.isASCIIDigit),
            let digits = Int64(fraction + String(repeating: "0", count: 9 - fraction.count))
        else { return nil }
        return .seconds(seconds) + .nanoseconds(digits)
    }

    /// `duration` in whole milliseconds, rounded down (never promising more time than is left).
    public static func format(_ duration: Duration) -> String {
        let milliseconds = max(
            0, duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
        let fraction = milliseconds % 1000
        guard fraction != 0 else { return "\(milliseconds / 1000)s" }
        let digits = String(fraction)
        return "\(milliseconds / 1000).\(String(repeating: "0", count: 3 - digits.count))\(digits)s"
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
