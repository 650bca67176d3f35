import Encodings

/// The decoded query string of a request, in the order the client sent it.
public struct QueryParameters: Sendable, Equatable {
    private var pairs: [(name: String, value: String)]

    public init(_ pairs: [(name: String, value: String)] = []) {
        self.pairs = pairs
    }

    /// Parses `a=1&b=two+words&flag`. Names and values are percent-decoded and `+` is a space;
    /// a name without `=` has the empty value; empty pieces (`a=1&&b=2`) are skipped.
    ///
    /// Returns nil when any piece has an invalid percent-encoding.
    init?(parsing query: Substring) {
        var pairs: [(name: String, value: String)] = []
        for piece in query.split(separator: "&", omittingEmptySubsequences: true) {
            let name: Substring
            let value: Substring
            if let equals = piece.firstIndex(of: "=") {
                name = piece[..<equals]
                value = piece[piece.index(after: equals)...]
            } else {
                name = piece
                value = ""
            }
            guard let decodedName = PercentDecoding.decode(name, plusIsSpace: true),
                let decodedValue = PercentDecoding.decode(value, plusIsSpace: true)
            else { return nil }
            pairs.append((decodedName, decodedValue))
        }
        self.pairs = pairs
    }

    /// The first value given for `name`, if any.
    public subscript(_ name: String) -> String? {
        pairs.first { $0.name == name }?.value
    }

    /// Every value given for `name`, in order (`?tag=a&tag=b`).
    public func values(_ name: String) -> [String] {
        pairs.filter { $0.name == name }.map(\.value)
    }

    /// Distinct names in first-seen order, so handlers can reject parameters they do not know.
    public var names: [String] {
        var seen = Set<String>()
        return pairs.map(\.name).filter { seen.insert($0).inserted }
    }

    public static func == (lhs: QueryParameters, rhs: QueryParameters) -> Bool {
        lhs.pairs.elementsEqual(rhs.pairs) { $0 == $1 }
    }
}
