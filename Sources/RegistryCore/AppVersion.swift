/// The app's version string as the app reports it (`6.2.1 (1234)`): 1–64 characters, no control
/// characters. Not parsed as semver — apps disagree on formats. JSON field `app_version`.
public struct AppVersion: ValidatedText {
    public let value: String

    public init(_ raw: String) throws(ValidationError) {
        try TextRules.checkLabel(raw, field: "app_version", maxLength: 64)
        value = raw
    }
}
