/// The JWS protected header fields the push services read (RFC 7515 §4.1): `alg`, `kid`, `typ`.
public struct JOSEHeader: Codable, Sendable, Equatable {
    /// The `alg` as written, which may name an algorithm we do not implement.
    public let algorithm: String
    public let keyID: String?
    public let type: String?

    public init(algorithm: String, keyID: String? = nil, type: String? = nil) {
        self.algorithm = algorithm
        self.keyID = keyID
        self.type = type
    }

    enum CodingKeys: String, CodingKey {
        case algorithm = "alg"
        case keyID = "kid"
        case type = "typ"
    }
}
