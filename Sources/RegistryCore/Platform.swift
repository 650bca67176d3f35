/// Free-form platform label reported by the app (`ios`, `android`, `ipados`, …): informational
/// only, so it is bounded (1–32 characters, no control characters) but not enumerated.
/// JSON field `platform`.
public struct Platform: ValidatedText {
    public let value: String

    public init(_ raw: String) throws(ValidationError) {
        try TextRules.checkLabel(raw, field: "platform", maxLength: 32)
        value = raw
    }
}
