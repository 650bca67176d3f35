/// "Did you mean …?" for a misspelt field or parameter name, worded the same in every body and
/// parameter list the registry reads.
public enum FieldSuggestion {
    /// The longest name (in UTF-8 bytes) that is compared with the known ones.
    public static let maxSuggestedBytes = 64

    /// The known name closest to `unknown`, if it is plausibly a typo: same letters modulo case
    /// and `_`/`-` (`userId` → `user_id`), or at most 2 edits away (`enviroment` → `environment`),
    /// and at most 1 edit for short names so that unrelated short names are not suggested.
    ///
    /// Names longer than `maxSuggestedBytes` get no suggestion: no field name is that long, and
    /// the edit distance costs time and memory per character of a name the client chose.
    public static func closest(to unknown: String, among known: [String]) -> String? {
        guard unknown.utf8.count <= maxSuggestedBytes else { return nil }
        let folded = fold(unknown)
        if let exact = known.first(where: { fold($0) == folded }) { return exact }
        let limit = folded.count <= 4 ? 1 : 2
        let scored = known.map { (name: $0, distance: editDistance(folded, fold($0))) }
        guard let best = scored.min(by: { $0.distance < $1.distance }), best.distance <= limit else { return nil }
        return best.name
    }

    /// The message for an unknown field: `unknown field; did you mean "user_id"?` when `closest`
    /// finds one, else `unknown field; expected one of: ` and every known name, in `known`'s order.
    public static func unknownFieldMessage(_ unknown: String, known: [String]) -> String {
        if let suggestion = closest(to: unknown, among: known) {
            return "unknown field; did you mean \"\(suggestion)\"?"
        }
        return "unknown field; expected one of: " + known.joined(separator: ", ")
    }

    private static func fold(_ name: String) -> [Character] {
        Array(name.lowercased().filter { $0 != "_" && $0 != "-" })
    }

    /// Optimal string alignment distance (Levenshtein plus adjacent transposition).
    private static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
