/// "Did you mean …?" for a misspelt field name, worded as the registry's other bodies word it.
///
/// A copy of RegistryCore's internal `FieldSuggestion`, which this target cannot see: when that
/// one is made public, this file goes.
enum FieldSuggestion {
    /// The known name closest to `unknown` if it is plausibly a typo: equal modulo case and
    /// `_`/`-`, or at most 2 edits away (1 for names of 4 characters or fewer).
    static func closest(to unknown: String, among known: [String]) -> String? {
        let folded = fold(unknown)
        if let exact = known.first(where: { fold($0) == folded }) { return exact }
        let limit = folded.count <= 4 ? 1 : 2
        let scored = known.map { (name: $0, distance: editDistance(folded, fold($0))) }
        guard let best = scored.min(by: { $0.distance < $1.distance }), best.distance <= limit else { return nil }
        return best.name
    }

    static func unknownFieldMessage(_ unknown: String, known: [String]) -> String {
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
