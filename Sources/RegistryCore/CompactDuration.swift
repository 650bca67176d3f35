/// A duration written the short way an operator types it: `270d`, `36h`, `90m`, `45s`, or
/// combined largest unit first (`1d12h`). Used by `--not-seen-for`.
///
/// Units are `s`, `m` (minutes), `h`, `d` (24 hours — calendar days and DST do not matter for
/// "not seen for"). Zero and negative durations are refused: "not seen for 0s" would match every
/// device, which is never what a cleanup means.
public struct CompactDuration: Sendable, Hashable, CustomStringConvertible {
    public let seconds: Int64

    public init(seconds: Int64) {
        self.seconds = seconds
    }

    public init(_ raw: String, field: String = "not_seen_for") throws(ValidationError) {
        let error = ValidationError(
            field: field, message: "must be a positive duration like 270d, 36h, 90m, 45s or 1d12h (units s, m, h, d)")
        let units: [Character: Int64] = ["d": 86_400, "h": 3_600, "m": 60, "s": 1]
        var total: Int64 = 0
        var digits = ""
        var lastUnit = Int64.max
        for character in raw {
            if character.isASCII, character.isNumber {
                digits.append(character)
                continue
            }
            guard let unit = units[character], unit < lastUnit, let amount = Int64(digits) else { throw error }
            let (product, productOverflow) = amount.multipliedReportingOverflow(by: unit)
            let (sum, sumOverflow) = total.addingReportingOverflow(product)
            guard !productOverflow, !sumOverflow else { throw error }
            total = sum
            lastUnit = unit
            digits = ""
        }
        guard digits.isEmpty, total > 0 else { throw error }
        seconds = total
    }

    public var duration: Duration { .seconds(seconds) }

    /// For `Date.addingTimeInterval(-…)`.
    public var timeInterval: Double { Double(seconds) }

    /// The canonical spelling (`1d12h`, `45s`).
    public var description: String {
        var rest = seconds
        var text = ""
        for (unit, size) in [("d", Int64(86_400)), ("h", 3_600), ("m", 60), ("s", 1)] where rest >= size {
            text += "\(rest / size)\(unit)"
            rest %= size
        }
        return text
    }
}
