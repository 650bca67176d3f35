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
        // Parsed on bytes, the error built only when thrown: pushes parse two durations each.
        func invalid() -> ValidationError {
            ValidationError(
                field: field,
                message: "must be a positive duration like 270d, 36h, 90m, 45s or 1d12h (units s, m, h, d)")
        }
        var total: Int64 = 0
        var amount: Int64? = nil
        var lastUnit = Int64.max
        for byte in raw.utf8 {
            if (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                let (shifted, shiftOverflow) = (amount ?? 0).multipliedReportingOverflow(by: 10)
                let (next, addOverflow) = shifted.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
                guard !shiftOverflow, !addOverflow else { throw invalid() }
                amount = next
                continue
            }
            guard let unit = Self.unitSeconds(byte), unit < lastUnit, let digits = amount else { throw invalid() }
            let (product, productOverflow) = digits.multipliedReportingOverflow(by: unit)
            let (sum, sumOverflow) = total.addingReportingOverflow(product)
            guard !productOverflow, !sumOverflow else { throw invalid() }
            total = sum
            lastUnit = unit
            amount = nil
        }
        guard amount == nil, total > 0 else { throw invalid() }
        seconds = total
    }

    private static func unitSeconds(_ byte: UInt8) -> Int64? {
        switch byte {
        case UInt8(ascii: "d"): 86_400
        case UInt8(ascii: "h"): 3_600
        case UInt8(ascii: "m"): 60
        case UInt8(ascii: "s"): 1
        default: nil
        }
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
