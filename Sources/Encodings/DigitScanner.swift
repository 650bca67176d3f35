/// A cursor over ASCII text for the timestamp parser, on bytes lent by `String.withUTF8`: a
/// listing parses three timestamps per device, so no copy of them is made.
struct DigitScanner {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    var isAtEnd: Bool { index == bytes.count }

    mutating func skip(_ character: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
        index += 1
        return true
    }

    /// Exactly `digits` decimal digits.
    mutating func number(digits: Int) -> Int? {
        guard index + digits <= bytes.count else { return nil }
        var value = 0
        for byte in UnsafeBufferPointer(rebasing: bytes[index..<index + digits]) {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        index += digits
        return value
    }

    /// Fractional seconds as microseconds; digits past the sixth are dropped.
    mutating func fraction() -> Int64? {
        var micros: Int64 = 0
        var count = 0
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
            if count < 6 { micros = micros * 10 + Int64(bytes[index] - UInt8(ascii: "0")) }
            count += 1
            index += 1
        }
        guard count > 0 else { return nil }
        for _ in count..<max(count, 6) { micros *= 10 }
        return micros
    }

    /// `Z` or `±HH:MM`; with `.postgres` also `±HH`, `±HH:MM:SS` or nothing at all (UTC).
    mutating func offsetSeconds(_ offsets: RFC3339.Offsets) -> Int64? {
        if skip("Z") || skip("z") { return 0 }
        if isAtEnd { return offsets == .postgres ? 0 : nil }
        let sign: Int64
        if skip("+") {
            sign = 1
        } else if skip("-") {
            sign = -1
        } else {
            return nil
        }
        guard let hours = number(digits: 2), hours <= 23 else { return nil }
        var seconds = hours * 3600
        if skip(":") {
            guard let minutes = number(digits: 2), minutes <= 59 else { return nil }
            seconds += minutes * 60
            if offsets == .postgres, skip(":") {
                guard let extra = number(digits: 2), extra <= 59 else { return nil }
                seconds += extra
            }
        } else if offsets == .rfc3339 {
            return nil
        }
        return sign * Int64(seconds)
    }
}
