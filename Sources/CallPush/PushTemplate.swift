import Foundation
import RegistryCore

/// A notification title or body with `{{ placeholder }}`s, as Stream's call type settings take
/// them: `You missed a call from {{ user.display_name }}`. Checked when saved, so an unknown
/// placeholder is refused then rather than sent as text later.
public struct PushTemplate: Sendable, Hashable {
    public enum Placeholder: String, Sendable, Hashable, CaseIterable {
        /// The caller's id.
        case userID = "user.id"
        /// The caller's name: display name, else phone number, else SIP URI, else id.
        case userDisplayName = "user.display_name"
        case callID = "call.id"
        case callDisplayName = "call.display_name"
        case callType = "call.type"
        /// The user the push is addressed to.
        case receiverID = "receiver.id"
    }

    private enum Segment: Sendable, Hashable {
        case text(String)
        case placeholder(Placeholder)
    }

    /// The template as it was written, for storing and showing back.
    public let source: String
    private let segments: [Segment]

    public static let maxLength = 1024

    public init(_ source: String, field: String) throws(ValidationError) {
        // Code points, as the contract's maxLength counts them.
        guard source.unicodeScalars.count <= Self.maxLength else {
            throw ValidationError(field: field, message: "must be at most \(Self.maxLength) characters long")
        }
        // Invisible in a notification, and U+0000 cannot even be stored in the provider's jsonb.
        guard !TextRules.containsControlCharacter(source) else {
            throw ValidationError(field: field, message: "must not contain control characters")
        }
        var segments: [Segment] = []
        var rest = Substring(source)
        while let open = rest.range(of: "{{") {
            if open.lowerBound > rest.startIndex { segments.append(.text(String(rest[..<open.lowerBound]))) }
            guard let close = rest[open.upperBound...].range(of: "}}") else {
                throw ValidationError(field: field, message: "has a \"{{\" without its closing \"}}\"")
            }
            let name = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            guard let placeholder = Placeholder(rawValue: name) else {
                throw ValidationError(field: field, message: Self.unknownPlaceholderMessage(name))
            }
            segments.append(.placeholder(placeholder))
            rest = rest[close.upperBound...]
        }
        if !rest.isEmpty { segments.append(.text(String(rest))) }
        self.source = source
        self.segments = segments
    }

    /// The text with each placeholder replaced by `value(placeholder)`.
    public func render(_ value: (Placeholder) -> String) -> String {
        segments.map { segment in
            switch segment {
            case .text(let text): text
            case .placeholder(let placeholder): value(placeholder)
            }
        }.joined()
    }

    private static func unknownPlaceholderMessage(_ name: String) -> String {
        let names = Placeholder.allCases.map(\.rawValue)
        let hint = FieldSuggestion.closest(to: name, among: names).map { "did you mean {{ \($0) }}? " } ?? ""
        return "has an unknown placeholder {{ \(name) }}; \(hint)expected one of: "
            + names.map { "{{ \($0) }}" }.joined(separator: ", ")
    }
}
