import RegistryCore

/// Reads push service response bodies, which are small JSON objects, forgivingly: anything that
/// is not a JSON object reads as empty, so a proxy's HTML error page still classifies by status.
enum ResponseBody {
    static func object(_ body: [UInt8]) -> [String: JSONValue] {
        guard !body.isEmpty else { return [:] }
        let value = body.withUnsafeBytes { try? JSONParser.parse($0) }
        return value?.objectValue ?? [:]
    }
}
