import Foundation

/// `timestamptz` text in and out, by calendar arithmetic rather than a `DateFormatter`: formatters
/// are slow, not thread-safe to share, and round microseconds away.
enum PostgresTimestamp {
    /// Microseconds between 1970-01-01 and 2001-01-01, `Date`'s reference date.
    private static let referenceOffset: Int64 = 978_307_200_000_000
    private static let microsPerDay: Int64 = 86_400_000_000

    /// `2024-05-06T07:08:09.123456Z`: RFC 3339, UTC, microseconds.
    static func format(_ date: Date) -> String {
        let micros = Int64((date.timeIntervalSinceReferenceDate * 1_000_000).rounded()) + referenceOffset
        let days = micros >= 0 ? micros / microsPerDay : (micros - microsPerDay + 1) / microsPerDay
        let dayMicros = micros - days * microsPerDay
        let (year, month, day) = civil(fromDays: days)
        let seconds = dayMicros / 1_000_000
        return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T" + pad(seconds / 3600, 2) + ":"
            + pad(seconds / 60 % 60, 2) + ":" + pad(seconds % 60, 2) + "." + pad(dayMicros % 1_000_000, 6) + "Z"
    }

    /// Reads the server's ISO output (`2024-05-06 07:08:09.123456+00`, fraction and offset minutes
    /// optional) and RFC 3339 (`T`, `Z`). Returns nil for anything else, `infinity` included.
    static func parse(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { parse(DigitScanner($0)) }
    }

    private static func parse(_ scanner: DigitScanner) -> Date? {
        var scanner = scanner
        guard let year = scanner.number(digits: 4), scanner.skip("-"),
            let month = scanner.number(digits: 2), scanner.skip("-"),
            let day = scanner.number(digits: 2), scanner.skip(" ") || scanner.skip("T"),
            let hour = scanner.number(digits: 2), scanner.skip(":"),
            let minute = scanner.number(digits: 2), scanner.skip(":"),
            let second = scanner.number(digits: 2)
        else { return nil }
        var fraction: Int64 = 0
        if scanner.skip(".") {
            guard let digits = scanner.fraction() else { return nil }
            fraction = digits
        }
        guard let offsetSeconds = scanner.offsetSeconds(), scanner.isAtEnd,
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second) - offsetSeconds
        let micros = seconds * 1_000_000 + fraction
        return Date(timeIntervalSinceReferenceDate: Double(micros - referenceOffset) / 1_000_000)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    // Howard Hinnant's days_from_civil / civil_from_days (proleptic Gregorian calendar).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * Int64(month > 2 ? month - 3 : month + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
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
