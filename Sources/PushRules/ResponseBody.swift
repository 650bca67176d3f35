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

extension JSONValue {
    var stringValue: String? {
        if case .string(let value) = self { value } else { nil }
    }

    var numberValue: Double? {
        if case .number(let value) = self { value } else { nil }
    }

    var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { value } else { nil }
    }

    var arrayValue: [JSONValue]? {
        if case .array(let value) = self { value } else { nil }
    }
}
