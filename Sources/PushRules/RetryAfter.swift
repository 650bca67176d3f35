import Encodings
import Foundation
import RegistryCore

/// The `Retry-After` header (RFC 9110 §10.2.3): delay-seconds or an HTTP-date.
public enum RetryAfter {
    /// The wait it asks for, measured from `now`; zero for a date in the past, nil when the value
    /// is neither form.
    public static func parse(_ value: String, now: Date) -> Duration? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int64(trimmed), seconds >= 0 {
            return .seconds(seconds)
        }
        guard let date = imfFixdate(trimmed) else { return nil }
        return .milliseconds(max(0, Int64((date.timeIntervalSince(now) * 1000).rounded(.up))))
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `Sun, 06 Nov 1994 08:49:37 GMT`, the only date form a sender may generate (RFC 9110
    /// §5.6.7), rewritten as RFC 3339 so one parser checks the calendar.
    private static func imfFixdate(_ text: String) -> Date? {
        let fields = text.split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count == 6, fields[0].count == 4, fields[0].hasSuffix(","), fields[1].count == 2,
            let month = months.firstIndex(of: String(fields[2])), fields[3].count == 4, fields[4].count == 8,
            fields[5] == "GMT"
        else { return nil }
        let monthNumber = month < 9 ? "0\(month + 1)" : "\(month + 1)"
        return RFC3339.parse("\(fields[3])-\(monthNumber)-\(fields[1])T\(fields[4])Z")
    }
}
