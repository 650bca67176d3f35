import Foundation

/// Builds signed JWTs (RFC 7519): the APNs provider token and Google's OAuth assertion.
public enum JSONWebToken {
    /// A compact JWT whose header is `{"alg":…,"kid":…,"typ":"JWT"}` (no `kid` when nil) and
    /// whose payload is `claims` as JSON with sorted keys, signed with `key`.
    public static func sign(claims: some Encodable, keyID: String?, with key: SigningKey) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let header = JOSEHeader(algorithm: key.algorithm.rawValue, keyID: keyID, type: "JWT")
        return try CompactJWS.sign(
            header: Array(try encoder.encode(header)), payload: Array(try encoder.encode(claims)), with: key)
    }
}
