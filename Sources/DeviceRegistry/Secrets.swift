import Foundation

/// Settings that are secrets: read from the environment, never from a flag (a flag shows in
/// `ps`), either as `NAME` or as `NAME_FILE`, the path of a file holding the value, which is how
/// Docker and Kubernetes mount secrets. The database URLs may carry a password, so they may come
/// from a file too (their flags stay, for local use).
enum Secrets {
    /// Every secret `serve` reads, with what it is; `serve --help` lists them.
    static let all: [(name: String, meaning: String)] = [
        ("REGISTRY_MASTER_KEY", "seals provider credentials and payload keys (32 bytes, base64url)"),
        ("REGISTRY_OLD_MASTER_KEYS", "earlier master keys, comma-separated, which only open (a rotation)"),
        ("REGISTRY_ADMIN_KEY", "an admin API key ensured at start (drk_…)"),
        ("DIALSTACK_WEBHOOK_SECRET", "checks the DialStack webhook's signatures"),
        ("DATABASE_URL", "also --database-url"),
        ("DATABASE_LISTEN_URL", "also --database-listen-url"),
        ("DATABASE_READ_URL", "also --database-read-url"),
    ]

    /// `NAME`, else the contents of the file `NAME_FILE` names with its trailing line break
    /// dropped; nil when neither is set (or the value is empty). Both set is an error: which one
    /// wins would be a guess.
    static func value(_ name: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws
        -> String?
    {
        let direct = environment[name].flatMap { $0.isEmpty ? nil : $0 }
        guard let path = environment["\(name)_FILE"], !path.isEmpty else { return direct }
        guard direct == nil else {
            throw ConfigurationError("\(name) and \(name)_FILE are both set: set only one")
        }
        let contents: String
        do {
            contents = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigurationError("\(name)_FILE names \(path), which cannot be read as text")
        }
        var value = Substring(contents)
        if value.hasSuffix("\n") { value = value.dropLast() }  // "\r\n" is one Character in Swift
        return value.isEmpty ? nil : String(value)
    }

    /// The paragraph `serve --help` ends with.
    static var help: String {
        let lines = all.map { "  \($0.name) (or \($0.name)_FILE): \($0.meaning)" }
        return (["Secrets, from the environment only, each also from a file named by NAME_FILE:"] + lines)
            .joined(separator: "\n")
    }
}
