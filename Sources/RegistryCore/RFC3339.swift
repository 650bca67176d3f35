import Foundation

/// The one RFC 3339 timestamp parser and formatter every layer uses.
///
/// Hand-written rather than `ISO8601DateFormatter` so it is `Sendable`, allocation-light and
/// behaves identically on Linux and macOS.
public enum RFC3339 {
    /// Formats as UTC with exactly 6 fractional digits (`2026-11-22T03:24:00.123456Z`):
    /// microseconds, the precision PostgreSQL stores, so a timestamp survives a round trip.
    public static func format(_ date: Date) -> String {
        withUTF8(date) { String(decoding: $0, as: UTF8.self) }
    }

    /// The bytes `format` gives, lent to `body` without building a String: JSON writers put
    /// three of these in every device they write.
    public static func withUTF8<R>(_ date: Date, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        let totalMicros = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        let seconds = totalMicros.floorDiv(1_000_000)
        let fraction = totalMicros - seconds * 1_000_000
        let days = seconds.floorDiv(86_400)
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 48) { out in
            var count = 0
            func put(_ scalar: Unicode.Scalar) {
                out[count] = UInt8(ascii: scalar)
                count += 1
            }
            func put(_ value: Int64, width: Int) {
                var digits = 1
                var rest = value / 10
                while rest > 0 {
                    digits += 1
                    rest /= 10
                }
                digits = max(digits, width)
                var remaining = value
                for position in stride(from: count + digits - 1, through: count, by: -1) {
                    out[position] = UInt8(truncatingIfNeeded: 48 + remaining % 10)
                    remaining /= 10
                }
                count += digits
            }
            if year < 0 { put("-") }
            put(abs(year), width: 4)
            put("-")
            put(month, width: 2)
            put("-")
            put(day, width: 2)
            put("T")
            put(secondOfDay / 3600, width: 2)
            put(":")
            put(secondOfDay / 60 % 60, width: 2)
            put(":")
            put(secondOfDay % 60, width: 2)
            put(".")
            put(fraction, width: 6)
            put("Z")
            return try body(UnsafeBufferPointer(rebasing: out[..<count]))
        }
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`. `T`/`Z` may be lowercase and the
    /// separator may be a space (RFC 3339 §5.6 allows both). Leap seconds (`:60`) are refused:
    /// `Date` cannot represent them. Returns nil for anything else.
    public static func parse(_ text: String) -> Date? {
        let b = Array(text.utf8)
        guard b.count >= 20 else { return nil }
        func number(_ start: Int, _ length: Int) -> Int? {
            guard start + length <= b.count else { return nil }
            var value = 0
            for byte in b[start..<start + length] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard let year = number(0, 4), b[4] == UInt8(ascii: "-"), let month = number(5, 2), b[7] == UInt8(ascii: "-"),
            let day = number(8, 2), [UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: " ")].contains(b[10]),
            let hour = number(11, 2), b[13] == UInt8(ascii: ":"), let minute = number(14, 2),
            b[16] == UInt8(ascii: ":"), let second = number(17, 2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year), hour <= 23, minute <= 59,
            second <= 59
        else { return nil }

        var index = 19
        var fraction = 0.0
        if b[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 0.1
            let start = index
            while index < b.count, b[index] >= 48, b[index] <= 57 {
                fraction += Double(b[index] - 48) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        guard index < b.count else { return nil }
        var offset = 0
        switch b[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            index += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard let offsetHours = number(index + 1, 2), index + 3 < b.count, b[index + 3] == UInt8(ascii: ":"),
                let offsetMinutes = number(index + 4, 2), offsetHours <= 23, offsetMinutes <= 59
            else { return nil }
            offset = (offsetHours * 3600 + offsetMinutes * 60) * (b[index] == UInt8(ascii: "-") ? -1 : 1)
            index += 6
        default:
            return nil
        }
        guard index == b.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second - offset)
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    // Howard Hinnant's days_from_civil / civil_from_days: proleptic Gregorian, exact for all years.
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

extension Int64 {
    fileprivate func floorDiv(_ divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
