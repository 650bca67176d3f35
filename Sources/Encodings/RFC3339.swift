import Foundation

/// The one RFC 3339 timestamp parser and formatter every layer uses: the API's JSON and the
/// database's `timestamptz` text alike.
///
/// Hand-written rather than `ISO8601DateFormatter` so it is `Sendable`, allocation-light and
/// behaves identically on Linux and macOS.
public enum RFC3339 {
    /// Microseconds from 1970-01-01 to 2001-01-01, `Date`'s reference date.
    private static let referenceMicros: Int64 = 978_307_200_000_000

    /// Formats as UTC with exactly 6 fractional digits (`2026-11-22T03:24:00.123456Z`):
    /// microseconds, the precision PostgreSQL stores, so a timestamp survives a round trip.
    public static func format(_ date: Date) -> String {
        withUTF8(date) { String(decoding: $0, as: UTF8.self) }
    }

    /// The bytes `format` gives, lent to `body` without building a String: JSON writers put
    /// three of these in every device they write.
    public static func withUTF8<R>(_ date: Date, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        let totalMicros = Int64((date.timeIntervalSinceReferenceDate * 1_000_000).rounded()) + referenceMicros
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

    /// How the UTC offset may be written.
    public enum Offsets: Sendable {
        /// `Z` or `±HH:MM`, as RFC 3339 has it: what clients send.
        case rfc3339
        /// Also `±HH` and `±HH:MM:SS`, or none (UTC): what PostgreSQL writes for `timestamptz`
        /// (`2024-05-06 07:08:09.123456+00`).
        case postgres
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`. `T`/`Z` may be lowercase and the
    /// separator may be a space (RFC 3339 §5.6 allows both); fraction digits past microseconds
    /// are dropped. Dates that do not exist (31 February) and leap seconds (`:60`, which `Date`
    /// cannot represent) are refused. Returns nil for anything else, `infinity` included.
    public static func parse(_ text: String, offsets: Offsets = .rfc3339) -> Date? {
        var text = text
        return text.withUTF8 { parse(utf8: $0, offsets: offsets) }
    }

    /// `parse`, on text's bytes where they already are (a database result), without a String.
    public static func parse(utf8 bytes: UnsafeBufferPointer<UInt8>, offsets: Offsets = .rfc3339) -> Date? {
        var scanner = DigitScanner(bytes)
        return parse(&scanner, offsets: offsets)
    }

    private static func parse(_ scanner: inout DigitScanner, offsets: Offsets) -> Date? {
        guard let year = scanner.number(digits: 4), scanner.skip("-"),
            let month = scanner.number(digits: 2), scanner.skip("-"),
            let day = scanner.number(digits: 2), scanner.skip("T") || scanner.skip("t") || scanner.skip(" "),
            let hour = scanner.number(digits: 2), scanner.skip(":"),
            let minute = scanner.number(digits: 2), scanner.skip(":"),
            let second = scanner.number(digits: 2)
        else { return nil }
        var micros: Int64 = 0
        if scanner.skip(".") {
            guard let fraction = scanner.fraction() else { return nil }
            micros = fraction
        }
        guard let offset = scanner.offsetSeconds(offsets), scanner.isAtEnd,
            (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
            hour <= 23, minute <= 59, second <= 59
        else { return nil }
        let days = Int64(daysFromCivil(year: year, month: month, day: day))
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second) - offset
        // From whole microseconds since `Date`'s reference date, so `format` gives back the same digits.
        return Date(timeIntervalSinceReferenceDate: Double(seconds * 1_000_000 + micros - referenceMicros) / 1_000_000)
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
