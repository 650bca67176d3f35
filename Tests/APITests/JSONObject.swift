import Foundation
import TestSupport

/// Request bodies written as JSON text, so parameterised tests can take them as `Sendable`
/// arguments.
enum JSONObject {
    static func parse(_ text: String) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw TestFailure("not a JSON object: \(text)")
        }
        return object
    }
}
