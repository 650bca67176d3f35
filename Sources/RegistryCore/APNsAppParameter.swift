/// The APNs `pn-param` of a SIP contact: `<TeamID>.<BundleID>` plus an optional suffix saying
/// which tokens the client sends (`.remote`, `.voip`, `.remote&voip`).
struct APNsAppParameter {
    var teamID: String
    var bundleID: String
    /// The token types the suffix asks for; nil when there is no suffix.
    var requested: Set<TokenType>?

    /// Nil when the text is not of that shape. The team id is 1–20 letters or digits (Apple's are
    /// 10, but Linphone's own examples use shorter ones and nothing here depends on it).
    init?(_ text: String) {
        var segments = text.split(separator: ".", omittingEmptySubsequences: false)
        if let last = segments.last {
            let words = last.split(separator: "&", omittingEmptySubsequences: false).map { $0.lowercased() }
            if words.allSatisfy({ $0 == "remote" || $0 == "voip" }) {
                let types = Set(words.map { $0 == "voip" ? TokenType.voip : .apns })
                guard types.count == words.count else { return nil }
                requested = types
                segments.removeLast()
            } else if last.contains("&") {
                return nil
            }
        }
        guard segments.count >= 3 else { return nil }
        let team = segments[0]
        guard (1...20).contains(team.count), ASCIISet.alphanumerics.containsAll(team) else { return nil }
        let bundle = segments.dropFirst().joined(separator: ".")
        guard Provider.isBundleID(bundle) else { return nil }
        teamID = String(team)
        bundleID = bundle
    }
}
