/// A route's path, e.g. `/v1/users/{user_id}/devices`: literal segments and `{name}` parameters.
///
/// Trailing-slash policy: none. `/v1/users/` has an empty last segment, which no template
/// matches, so it is a 404 rather than an alias of `/v1/users`.
struct PathTemplate: Sendable, Equatable {
    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    let text: String
    let segments: [Segment]

    init(_ text: String) {
        precondition(text.hasPrefix("/"), "route template must start with '/': \(text)")
        self.text = text
        self.segments = PathTemplate.split(text).map { piece in
            if piece.hasPrefix("{") && piece.hasSuffix("}") && piece.count > 2 {
                return .parameter(String(piece.dropFirst().dropLast()))
            }
            precondition(!piece.isEmpty, "route template has an empty segment: \(text)")
            return .literal(String(piece))
        }
    }

    /// The raw segments of a path: `/a/b` → ["a", "b"], `/` → [], `/a/` → ["a", ""].
    static func split(_ path: String) -> [Substring] {
        let rest = path.dropFirst()
        return rest.isEmpty ? [] : rest.split(separator: "/", omittingEmptySubsequences: false)
    }

    /// Whether `segments` (already percent-decoded) fit this template.
    func fits(_ segments: [String]) -> Bool {
        guard segments.count == self.segments.count else { return false }
        for (segment, part) in zip(segments, self.segments) {
            switch part {
            case .literal(let literal):
                guard segment == literal else { return false }
            case .parameter:
                guard !segment.isEmpty else { return false }
            }
        }
        return true
    }

    /// The parameters of `segments`, which fit this template.
    func parameters(_ segments: [String]) -> [String: String] {
        var parameters: [String: String] = [:]
        for (segment, part) in zip(segments, self.segments) {
            if case .parameter(let name) = part { parameters[name] = segment }
        }
        return parameters
    }

    /// Whether this template should be tried before `other`: at the first position where one
    /// has a literal and the other a parameter, the literal wins (`/devices/batch` before
    /// `/devices/{token}`).
    func isMoreSpecific(than other: PathTemplate) -> Bool {
        for (mine, theirs) in zip(segments, other.segments) {
            switch (mine, theirs) {
            case (.literal, .parameter): return true
            case (.parameter, .literal): return false
            default: continue
            }
        }
        return false
    }
}
